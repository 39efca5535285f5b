import type { ApiResult } from '@shared/http/api-types';
import type { SocialPreview } from '@shared/links/link-record';
import { escapeHtml } from './escape';
import { htmlPage } from './page';

export interface PreviewInput {
  title: string;
  socialPreview: SocialPreview | null | undefined;
  shortLink: string;
  destination: string;
}

const meta = (attr: 'property' | 'name', name: string, content: string | null | undefined) =>
  content ? `\n<meta ${attr}="${name}" content="${escapeHtml(content)}">` : '';

/**
 * What crawlers and unfurlers get: Open Graph and Twitter card tags from `socialPreview`
 * (title falls back to the link's title), and a plain link to the destination. No refresh or
 * script redirect, so the preview is what the crawler reads.
 */
export const previewPage = (input: PreviewInput): ApiResult => {
  const preview: NonNullable<SocialPreview> = input.socialPreview ?? {};
  const title = preview.title || input.title;
  const card = preview.twitterCard ?? (preview.image ? 'summary_large_image' : 'summary');
  const head =
    meta('property', 'og:type', 'website') +
    meta('property', 'og:url', input.shortLink) +
    meta('property', 'og:title', title) +
    meta('property', 'og:description', preview.description) +
    meta('property', 'og:image', preview.image) +
    meta('property', 'og:image:alt', preview.imageAlt) +
    meta('name', 'twitter:card', card) +
    meta('name', 'twitter:title', title) +
    meta('name', 'twitter:description', preview.description) +
    meta('name', 'twitter:image', preview.image) +
    meta('name', 'twitter:image:alt', preview.imageAlt) +
    meta('name', 'description', preview.description);
  return htmlPage({
    status: 200,
    title,
    head,
    body: `<h1>${escapeHtml(title)}</h1>${preview.description ? `<p>${escapeHtml(preview.description)}</p>` : ''}
<a class="button primary" href="${escapeHtml(input.destination)}">Continue</a>`,
  });
};
