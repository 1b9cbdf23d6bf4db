/**
 * Glob-style matching as Redis does it for KEYS, SCAN MATCH, CONFIG GET and
 * friends (src/util.c stringmatchlen): * ? [abc] [^a] [a-z] and \ escapes.
 * Bytes compare as C's signed char, as on the platforms Redis ships on, and
 * "nocase" lowercases only A-Z.
 */
export function globMatch(pattern: string, str: string, nocase = false): boolean {
  // Fast paths for the most common patterns.
  if (pattern === '*' && str.length > 0) return true;
  skipLonger = false;
  return matchAt(pattern, 0, str, 0, nocase);
}

/**
 * Set once the rest of a pattern failed to match anywhere after a '*': then
 * no earlier '*' can help by matching more, and the search stops. Shared by
 * the recursion of one match, as Redis shares it through a pointer.
 */
let skipLonger = false;

function signed(c: number): number {
  return c >= 128 ? c - 256 : c;
}

function lower(c: number): number {
  return c >= 65 && c <= 90 ? c + 32 : c;
}

function matchAt(p: string, pi: number, s: string, si: number, nocase: boolean): boolean {
  const plen = p.length;
  const slen = s.length;
  while (pi < plen && si < slen) {
    const pc = p.charCodeAt(pi);
    if (pc === 42 /* * */) {
      while (pi + 1 < plen && p.charCodeAt(pi + 1) === 42) pi++;
      if (pi === plen - 1) return true;
      while (si < slen) {
        if (matchAt(p, pi + 1, s, si, nocase)) return true;
        if (skipLonger) return false;
        si++;
      }
      skipLonger = true;
      return false;
    } else if (pc === 63 /* ? */) {
      si++;
    } else if (pc === 91 /* [ */) {
      pi++;
      const not = p.charCodeAt(pi) === 94; /* ^ */
      if (not) pi++;
      let match = false;
      const c = s.charCodeAt(si);
      for (;;) {
        const left = plen - pi;
        const cur = pi < plen ? p.charCodeAt(pi) : 0;
        if (cur === 92 /* \ */ && left >= 2) {
          pi++;
          if (p.charCodeAt(pi) === c) match = true;
        } else if (cur === 93 /* ] */ && left > 0) {
          break;
        } else if (left <= 0) {
          pi--;
          break;
        } else if (left >= 3 && p.charCodeAt(pi + 1) === 45 /* - */) {
          let start = signed(cur);
          let end = signed(p.charCodeAt(pi + 2));
          let cc = signed(c);
          if (start > end) [start, end] = [end, start];
          if (nocase) {
            start = lower(start);
            end = lower(end);
            cc = lower(cc);
          }
          pi += 2;
          if (cc >= start && cc <= end) match = true;
        } else if (nocase ? lower(cur) === lower(c) : cur === c) {
          match = true;
        }
        pi++;
      }
      if (not) match = !match;
      if (!match) return false;
      si++;
    } else {
      let qc = pc;
      if (pc === 92 /* \ */ && plen - pi >= 2) {
        pi++;
        qc = p.charCodeAt(pi);
      }
      const sc = s.charCodeAt(si);
      if (nocase ? lower(qc) !== lower(sc) : qc !== sc) return false;
      si++;
    }
    pi++;
    if (si === slen) {
      while (pi < plen && p.charCodeAt(pi) === 42) pi++;
      break;
    }
  }
  return pi >= plen && si === slen;
}
