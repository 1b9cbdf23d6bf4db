/**
 * OpenSSH 9.2's progress meter (progressmeter.c), as scp draws it on a
 * terminal: the file name padded to the width less 36 columns, percent,
 * amount, an averaged rate and the ETA, or at the end the elapsed time.
 * Each refresh starts with a carriage return; the caller adds the final
 * newline. Times are seconds of virtual time.
 */
export class ProgressMeter {
  private startS: number;
  private lastUpdateS: number;
  private curPos = 0;
  private bytesPerSecond = 0;
  private stalledS = 0;

  constructor(
    private readonly file: string,
    private readonly endPos: number,
    nowS: number,
    private readonly columns = 80,
  ) {
    this.startS = nowS;
    this.lastUpdateS = nowS;
  }

  get position(): number {
    return this.curPos;
  }

  /** The line for `counter` bytes done at `nowS`. */
  refresh(counter: number, nowS: number): string {
    let transferred = counter - this.curPos;
    this.curPos = counter;
    const bytesLeft = this.endPos - this.curPos;
    let elapsed: number;
    if (bytesLeft > 0) {
      elapsed = nowS - this.lastUpdateS;
    } else {
      // Done: the true average over the whole transfer.
      elapsed = nowS - this.startS;
      transferred = this.endPos;
      this.bytesPerSecond = 0;
    }
    const curSpeed = Math.trunc(elapsed !== 0 ? transferred / elapsed : transferred);
    this.bytesPerSecond = this.bytesPerSecond !== 0 ? Math.trunc(this.bytesPerSecond * 0.9 + curSpeed * 0.1) : curSpeed;

    const winSize = Math.min(512, this.columns) + 1;
    const fileLen = winSize - 36;
    let buf = '';
    if (fileLen > 0) buf = this.file.length >= fileLen ? this.file.slice(0, fileLen) : this.file.padEnd(fileLen);
    const percent = this.endPos === 0 || this.curPos === this.endPos ? 100 : Math.trunc(Math.fround(Math.fround(this.curPos / this.endPos) * 100));
    buf += ` ${String(percent).padStart(3)}% ${formatSize(this.curPos)} ${formatRate(this.bytesPerSecond)}/s `;

    if (transferred === 0) this.stalledS += elapsed;
    else this.stalledS = 0;
    if (this.stalledS >= 5) {
      buf += '- stalled -';
    } else if (this.bytesPerSecond === 0 && bytesLeft !== 0) {
      buf += '  --:-- ETA';
    } else {
      let seconds = Math.trunc(bytesLeft > 0 ? bytesLeft / this.bytesPerSecond : elapsed);
      const hours = Math.trunc(seconds / 3600);
      seconds -= hours * 3600;
      const minutes = Math.trunc(seconds / 60);
      seconds -= minutes * 60;
      const two = (n: number): string => String(n).padStart(2, '0');
      buf += hours !== 0 ? `${hours}:${two(minutes)}:${two(seconds)}` : `  ${two(minutes)}:${two(seconds)}`;
      buf += bytesLeft > 0 ? ' ETA' : '    ';
    }
    this.lastUpdateS = nowS;
    return '\r' + buf.slice(0, winSize - 2);
  }
}

const UNITS = ' KMGT';

/** "%4lld%c%s": the amount in bytes, then KiB... once it reaches 10000. */
export function formatSize(bytes: number): string {
  let i = 0;
  while (bytes >= 10000 && UNITS[i] !== 'T') {
    bytes = Math.trunc((bytes + 512) / 1024);
    i++;
  }
  return `${String(bytes).padStart(4)}${UNITS[i]}${i !== 0 ? 'B' : ' '}`;
}

/** "%3lld.%1lld%cB": a rate with one decimal, in KB/s at least. */
export function formatRate(bytes: number): string {
  bytes *= 100;
  let i = 0;
  while (bytes >= 100 * 1000 && UNITS[i] !== 'T') {
    bytes = Math.trunc((bytes + 512) / 1024);
    i++;
  }
  if (i === 0) {
    i++;
    bytes = Math.trunc((bytes + 512) / 1024);
  }
  return `${String(Math.trunc((bytes + 5) / 100)).padStart(3)}.${Math.trunc((bytes + 5) / 10) % 10}${UNITS[i]}B`;
}
