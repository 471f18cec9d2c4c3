/**
 * The oEmbed providers asked directly, without discovery: a few common sites, each with the URL shapes it
 * embeds and its endpoint. A URL matching none of them is only looked up by discovery (`discover=true`).
 */
export interface OEmbedProvider {
  name: string;
  /** Whole-URL patterns (scheme and host included). */
  matches: readonly RegExp[];
  /** The provider's oEmbed endpoint; `url`, `format`, `maxwidth` and `maxheight` are added as query params. */
  endpoint: string;
}

export const OEMBED_PROVIDERS: readonly OEmbedProvider[] = [
  {
    name: 'YouTube',
    matches: [/^https?:\/\/(www\.|m\.)?youtube\.com\/(watch|playlist|shorts\/)/i, /^https?:\/\/youtu\.be\//i],
    endpoint: 'https://www.youtube.com/oembed',
  },
  {
    name: 'Vimeo',
    matches: [/^https?:\/\/(www\.|player\.)?vimeo\.com\//i],
    endpoint: 'https://vimeo.com/api/oembed.json',
  },
  {
    name: 'SoundCloud',
    matches: [/^https?:\/\/(www\.)?soundcloud\.com\//i],
    endpoint: 'https://soundcloud.com/oembed',
  },
  {
    name: 'Flickr',
    matches: [/^https?:\/\/(www\.)?flickr\.com\//i, /^https?:\/\/flic\.kr\//i],
    endpoint: 'https://www.flickr.com/services/oembed/',
  },
  { name: 'Spotify', matches: [/^https?:\/\/open\.spotify\.com\//i], endpoint: 'https://open.spotify.com/oembed' },
];

export function providerFor(
  url: string,
  providers: readonly OEmbedProvider[] = OEMBED_PROVIDERS,
): OEmbedProvider | null {
  return providers.find((p) => p.matches.some((pattern) => pattern.test(url))) ?? null;
}
