/** How the console writes dates and numbers: the browser's locale. */
export const dateFormat = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'short' });
export const numberFormat = new Intl.NumberFormat();
export const percentFormat = new Intl.NumberFormat(undefined, { maximumFractionDigits: 1 });

export const formatDate = (iso: string | null | undefined): string => (iso ? dateFormat.format(new Date(iso)) : '—');

/** A short link without its scheme, as the console shows it. */
export const shortLinkText = (shortLink: string): string => shortLink.replace(/^https?:\/\//, '');
