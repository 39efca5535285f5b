/**
 * The link form's values (strings, as the inputs hold them) and the API bodies made of them:
 * every field of the links API's create and patch requests.
 */
import type { DeepLinkCreateRequest, Link, LinkCreateRequest, LinkPatchRequest } from '@linkservice/sdk';

export const TRACKING_FIELDS = [
  ['utmSource', 'UTM source'],
  ['utmMedium', 'UTM medium'],
  ['utmCampaign', 'UTM campaign'],
  ['utmTerm', 'UTM term'],
  ['utmContent', 'UTM content'],
  ['ref', 'Referral (ref)'],
  ['campaignId', 'Campaign id'],
  ['campaignName', 'Campaign name'],
  ['channel', 'Channel'],
  ['adGroupId', 'Ad group id'],
  ['adGroup', 'Ad group'],
  ['adId', 'Ad id'],
  ['creativeId', 'Creative id'],
  ['creative', 'Creative'],
  ['keyword', 'Keyword'],
] as const;
export type TrackingField = (typeof TRACKING_FIELDS)[number][0];

export interface LinkFormValues {
  url: string;
  domain: string;
  /** A deep link's app (`app_...`): a deep link is created on its app's domain, not on a chosen one. */
  appId: string;
  key: string;
  title: string;
  tags: string;
  comments: string;
  tracking: Record<TrackingField, string>;
  /** `name=value`, one a line. */
  customParams: string;
  /** A `datetime-local` value (the browser's time zone), or ''. */
  expiresAt: string;
  expiredUrl: string;
  password: string;
  removePassword: boolean;
  /** `CC=https://...`, one a line. */
  geo: string;
  iosOverrideUrl: string;
  androidOverrideUrl: string;
  desktopOverrideUrl: string;
  previewTitle: string;
  previewDescription: string;
  previewImage: string;
  previewImageAlt: string;
  twitterCard: '' | 'summary' | 'summary_large_image';
  /** JSON object, or ''. */
  objects: string;
}

const emptyTracking = (): Record<TrackingField, string> =>
  Object.fromEntries(TRACKING_FIELDS.map(([name]) => [name, ''])) as Record<TrackingField, string>;

export const emptyForm = (domain: string): LinkFormValues => ({
  url: '',
  domain,
  appId: '',
  key: '',
  title: '',
  tags: '',
  comments: '',
  tracking: emptyTracking(),
  customParams: '',
  expiresAt: '',
  expiredUrl: '',
  password: '',
  removePassword: false,
  geo: '',
  iosOverrideUrl: '',
  androidOverrideUrl: '',
  desktopOverrideUrl: '',
  previewTitle: '',
  previewDescription: '',
  previewImage: '',
  previewImageAlt: '',
  twitterCard: '',
  objects: '',
});

const pad = (n: number) => String(n).padStart(2, '0');

/** An ISO instant as a `datetime-local` value in the browser's time zone. */
const toLocalInput = (iso: string | null): string => {
  if (!iso) return '';
  const d = new Date(iso);
  return `${d.getFullYear()}-${pad(d.getMonth() + 1)}-${pad(d.getDate())}T${pad(d.getHours())}:${pad(d.getMinutes())}`;
};

const lines = (record: Record<string, string> | null | undefined): string =>
  Object.entries(record ?? {})
    .map(([k, v]) => `${k}=${v}`)
    .join('\n');

export const formOf = (link: Link): LinkFormValues => {
  const tracking = emptyTracking();
  for (const [name] of TRACKING_FIELDS) {
    const value = link.tracking?.[name];
    if (typeof value === 'string') tracking[name] = value;
  }
  return {
    url: link.url,
    domain: link.domain,
    appId: link.deepLinkAppId ?? '',
    key: link.key,
    title: link.title,
    tags: link.tags.map((t) => t.name).join(', '),
    comments: link.comments ?? '',
    tracking,
    customParams: lines(link.tracking?.customParams),
    expiresAt: toLocalInput(link.expiresAt),
    expiredUrl: link.expiredUrl ?? '',
    password: '',
    removePassword: false,
    geo: lines(link.geo),
    iosOverrideUrl: link.iosOverrideUrl ?? '',
    androidOverrideUrl: link.androidOverrideUrl ?? '',
    desktopOverrideUrl: link.desktopOverrideUrl ?? '',
    previewTitle: link.socialPreview?.title ?? '',
    previewDescription: link.socialPreview?.description ?? '',
    previewImage: link.socialPreview?.image ?? '',
    previewImageAlt: link.socialPreview?.imageAlt ?? '',
    twitterCard: link.socialPreview?.twitterCard ?? '',
    objects: link.objects ? JSON.stringify(link.objects, null, 2) : '',
  };
};

/** A form value the page refuses before sending (the API checks the rest and says what is wrong). */
export class FormError extends Error {
  override name = 'FormError';
}

const orNull = (value: string): string | null => (value.trim() === '' ? null : value.trim());

/** `name=value` lines as a record; a line without `=` is refused. */
const parseLines = (text: string, what: string): Record<string, string> | null => {
  const entries = text
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '')
    .map((line) => {
      const at = line.indexOf('=');
      if (at <= 0) throw new FormError(`${what}: "${line}" is not name=value`);
      return [line.slice(0, at).trim(), line.slice(at + 1).trim()] as const;
    });
  return entries.length === 0 ? null : Object.fromEntries(entries);
};

const parseObjects = (text: string): Record<string, unknown> | null => {
  if (text.trim() === '') return null;
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new FormError('Objects: not valid JSON');
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed))
    throw new FormError('Objects: must be a JSON object');
  return parsed as Record<string, unknown>;
};

const trackingOf = (values: LinkFormValues) => {
  const tracking: Record<string, string | Record<string, string>> = {};
  for (const [name] of TRACKING_FIELDS) {
    const value = orNull(values.tracking[name]);
    if (value !== null) tracking[name] = value;
  }
  const custom = parseLines(values.customParams, 'Custom parameters');
  if (custom) tracking.customParams = custom;
  return Object.keys(tracking).length === 0 ? null : tracking;
};

const previewOf = (values: LinkFormValues) => {
  const preview = {
    title: orNull(values.previewTitle),
    description: orNull(values.previewDescription),
    image: orNull(values.previewImage),
    imageAlt: orNull(values.previewImageAlt),
    twitterCard: values.twitterCard === '' ? null : values.twitterCard,
  };
  return Object.values(preview).every((v) => v === null) ? null : preview;
};

const tagsOf = (values: LinkFormValues): string[] =>
  values.tags
    .split(',')
    .map((t) => t.trim())
    .filter((t) => t !== '');

const expiresOf = (values: LinkFormValues): string | null =>
  values.expiresAt === '' ? null : new Date(values.expiresAt).toISOString();

/** The fields create and patch share, each null when left empty. */
const commonFields = (values: LinkFormValues) => ({
  comments: orNull(values.comments),
  expiresAt: expiresOf(values),
  expiredUrl: orNull(values.expiredUrl),
  tracking: trackingOf(values),
  geo: parseLines(values.geo, 'Geo targeting'),
  iosOverrideUrl: orNull(values.iosOverrideUrl),
  androidOverrideUrl: orNull(values.androidOverrideUrl),
  desktopOverrideUrl: orNull(values.desktopOverrideUrl),
  socialPreview: previewOf(values),
  objects: parseObjects(values.objects) as LinkCreateRequest['objects'],
});

/** The fields of a create but the destination and where the link lives: the ones given, none of the empty ones. */
const givenFields = (values: LinkFormValues) => {
  const common = Object.fromEntries(Object.entries(commonFields(values)).filter(([, v]) => v !== null));
  const tags = tagsOf(values);
  return {
    ...common,
    ...(values.key.trim() === '' ? {} : { key: values.key.trim() }),
    ...(values.title.trim() === '' ? {} : { title: values.title.trim() }),
    ...(tags.length === 0 ? {} : { tags }),
    ...(values.password === '' ? {} : { password: values.password }),
  };
};

/** The create request of a short link: the fields given, none of the empty ones. */
export const createBody = (values: LinkFormValues): LinkCreateRequest => ({
  ...givenFields(values),
  url: values.url.trim(),
  domain: values.domain,
});

/**
 * The create request of a deep link (`POST /v1/deep-links`): its app instead of a domain (a deep
 * link lives on its app's domain), and the destination only when given (the app's default URL
 * otherwise).
 */
export const deepLinkCreateBody = (values: LinkFormValues): DeepLinkCreateRequest => ({
  ...givenFields(values),
  deepLinkAppId: values.appId.trim(),
  ...(values.url.trim() === '' ? {} : { url: values.url.trim() }),
});

/** The patch of an edit: every field as the form has it (emptied ones cleared), key and domain when changed. */
export const patchBody = (values: LinkFormValues, link: Link): LinkPatchRequest => {
  const tags = tagsOf(values);
  return {
    ...commonFields(values),
    url: values.url.trim(),
    title: orNull(values.title),
    tags: tags.length === 0 ? null : tags,
    ...(values.key.trim() !== link.key && values.key.trim() !== '' ? { key: values.key.trim() } : {}),
    ...(values.domain !== link.domain ? { domain: values.domain } : {}),
    ...(values.removePassword ? { password: null } : values.password === '' ? {} : { password: values.password }),
  };
};
