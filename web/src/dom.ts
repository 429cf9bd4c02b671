// The one way the page makes elements: text goes in as text, never as markup.

export function el<K extends keyof HTMLElementTagNameMap>(tag: K, cls = '', text?: string): HTMLElementTagNameMap[K] {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

export const $ = <T extends HTMLElement>(id: string): T => document.getElementById(id) as T;
