/** The cell's runtime (engine/inside.ts) bundled into one script for the cell's engine (scripts/cell-engine-plugin.ts). */
declare module 'virtual:cell-engine' {
  const source: string;
  export default source;
}
