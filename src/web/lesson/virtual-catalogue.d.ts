/** Every lesson's entry in the list, made from the lesson files when the page is built (scripts/lesson-catalogue-plugin.ts). */
declare module 'virtual:lesson-catalogue' {
  const catalogue: import('../../lessons/catalogue.js').Catalogue;
  export default catalogue;
}
