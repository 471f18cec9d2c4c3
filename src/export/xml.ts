/**
 * What the WXR writer needs of XML: text as CDATA (a `]]>` inside it split across two sections), attribute values
 * escaped, characters XML 1.0 cannot hold left out (and counted), and a sink that waits for the stream to drain.
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';

/**
 * Characters XML 1.0 cannot hold, even in CDATA: C0 controls but tab, newline and carriage return, lone
 * surrogates, U+FFFE and U+FFFF.
 */
const NOT_XML = /[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu;

export class XmlText {
  /** How many characters XML could not hold were left out. */
  dropped = 0;

  clean(text: string): string {
    return text.replace(NOT_XML, () => {
      this.dropped++;
      return '';
    });
  }

  /** `text` as one or more CDATA sections: `]]>` ends a section, so it is split between two. */
  cdata(text: string): string {
    return `<![CDATA[${this.clean(text).replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
  }

  /** `text` escaped for an attribute value in double quotes, or element text. */
  escape(text: string): string {
    return this.clean(text).replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
  }
}

/**
 * Writes to a stream at the stream's pace: each write waits while the stream's buffer is full. A stream error (a
 * full disk, a closed pipe) fails the next write, or the one waiting, with that error.
 */
export class Sink {
  private failure: Error | null = null;

  constructor(private readonly out: Writable) {
    out.on('error', (error: Error) => {
      this.failure ??= error;
    });
  }

  async write(text: string): Promise<void> {
    if (this.failure) throw this.failure;
    if (!this.out.write(text)) await once(this.out, 'drain');
    if (this.failure) throw this.failure;
  }
}
