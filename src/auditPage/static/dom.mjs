/**
 * Building the page without markup: every element is made with createElement and every value becomes a text node,
 * so nothing read from the API is ever parsed as HTML.
 */

/**
 * An element: `attributes` are set as attributes (`class`, `href`, `data-*`, …), except `on*` functions, which
 * become listeners; `children` are nodes, or strings and numbers (text), null and false are skipped.
 */
export function h(tag, attributes = {}, ...children) {
  const element = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') element.addEventListener(name.slice(2), value);
    else if (value === true) element.setAttribute(name, '');
    else element.setAttribute(name, String(value));
  }
  append(element, children);
  return element;
}

function append(parent, children) {
  for (const child of children) {
    if (child === null || child === undefined || child === false) continue;
    if (Array.isArray(child)) append(parent, child);
    else if (child instanceof Node) parent.append(child);
    else parent.append(document.createTextNode(String(child)));
  }
}

/** Replaces an element's children. */
export function replace(parent, ...children) {
  parent.replaceChildren();
  append(parent, children);
  return parent;
}

/** An ISO time as the page shows it, in UTC to the second: `2024-05-01 12:00:03 UTC`. */
export function showTime(iso) {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return String(iso);
  return `${date.toISOString().slice(0, 19).replace('T', ' ')} UTC`;
}

/** A value of an event or an item as one line or a block of text: strings as they are, anything else as JSON. */
export function showValue(value) {
  if (value === undefined) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value, null, 2);
}

/** A `datetime-local` value (UTC by the page's convention) from an ISO time, to the second. */
export function localInputValue(iso) {
  const date = new Date(iso);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString().slice(0, 19);
}

/** An ISO time from a `datetime-local` value read as UTC; '' for an empty or invalid one. */
export function fromLocalInput(value) {
  if (value === '') return '';
  const withSeconds = value.length === 16 ? `${value}:00` : value;
  const date = new Date(`${withSeconds}Z`);
  return Number.isNaN(date.getTime()) ? '' : date.toISOString();
}
