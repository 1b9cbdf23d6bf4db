/**
 * Runs a function as a new task, after every pending promise reaction:
 * setImmediate where there is one (Node), else a message to ourselves,
 * which unlike setTimeout(0) is never held back by timer clamping.
 * Functions queued together run in order.
 *
 *   const later = macrotaskQueue();
 *   later(() => console.log('after the microtasks'));
 */
export function macrotaskQueue(): (fn: () => void) => void {
  const immediate = (globalThis as { setImmediate?: (fn: () => void) => void }).setImmediate;
  if (typeof immediate === 'function') return (fn) => immediate(fn);
  const queue: Array<() => void> = [];
  const channel = new MessageChannel();
  channel.port1.onmessage = () => {
    const fn = queue.shift();
    fn?.();
  };
  return (fn) => {
    queue.push(fn);
    channel.port2.postMessage(null);
  };
}
