/** WordPress's plain-text field sanitising, shared by REST arguments (`format: text-field`) and stored names. */
import { phpTrim } from './phpTrim';

function escapeHtml(text: string): string {
  return text
    .replace(/&(?!#?\w+;)/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#039;');
}

/** WordPress's sanitize_text_field (and sanitize_textarea_field when newlines are kept). */
export function sanitizeTextField(text: string, keepNewlines: boolean): string {
  let out = text;
  if (out.includes('<')) {
    // A "<" that opens no tag is kept as text; tags (and script/style bodies) go.
    out = out.replace(/<[^>]*?(?:(?=<)|>|$)/g, (m) => (m.includes('>') ? m : escapeHtml(m)));
    out = out.replace(/<(script|style)[^>]*?>.*?<\/\1>/gis, '');
    out = phpTrim(out.replace(/<[^>]*>/g, ''));
    out = out.replace(/<\n/g, '&lt;\n');
  }
  if (!keepNewlines) out = out.replace(/[\r\n\t ]+/g, ' ');
  out = phpTrim(out);
  // Percent-encoded octets are removed, repeatedly, since removal can form new ones.
  let found = false;
  while (/%[a-f0-9]{2}/i.test(out)) {
    out = out.replace(/%[a-f0-9]{2}/gi, '');
    found = true;
  }
  if (found) out = phpTrim(out.replace(/ +/g, ' '));
  return out;
}
