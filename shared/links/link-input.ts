import type * as z from '@shared/schemas/zod-mini';
import { randomBase62 } from '@shared/util/ids';
import { ASSIGNED_ID_LENGTH, type RedirectRule, type Variant } from './link-rules';
import type { editableLinkFields, platformOverridesSchema } from '@shared/schemas/link-schemas';

type Editable = { [K in keyof typeof editableLinkFields]?: z.infer<(typeof editableLinkFields)[K]> };
type PlatformOverrides = z.infer<typeof platformOverridesSchema>;

/** Resolves aliases (destinationUrl, slug) once, so domain code sees one name per field. */
export const destinationOf = (body: Pick<Editable, 'url' | 'destinationUrl'>): string | undefined =>
  body.url ?? body.destinationUrl;
export const keyOf = (body: Pick<Editable, 'key' | 'slug'>): string | undefined => body.key ?? body.slug;

/**
 * Override URLs from the top-level fields and `platformOverrides` (both key styles).
 * A top-level field wins over the nested one; `undefined` means "not given".
 */
export const overridesOf = (
  body: Pick<Editable, 'desktopOverrideUrl' | 'androidOverrideUrl' | 'iosOverrideUrl' | 'platformOverrides'>,
) => {
  const nested: PlatformOverrides = body.platformOverrides ?? {};
  const pick = (top: string | null | undefined, long: string | null | undefined, short: string | null | undefined) =>
    top !== undefined ? top : long !== undefined ? long : short;
  return {
    desktopOverrideUrl: pick(body.desktopOverrideUrl, nested.desktopOverrideUrl, nested.desktop),
    androidOverrideUrl: pick(body.androidOverrideUrl, nested.androidOverrideUrl, nested.android),
    iosOverrideUrl: pick(body.iosOverrideUrl, nested.iosOverrideUrl, nested.ios),
  };
};

/** An empty `objects` is stored as null (and answered as null). */
export const normalizeObjects = (objects: Record<string, unknown> | null | undefined) =>
  objects === undefined ? undefined : objects === null || Object.keys(objects).length === 0 ? null : objects;

/** An empty `geo` map is stored as null, like `objects`. */
export const geoOf = (geo: Record<string, string> | null | undefined): Record<string, string> | null =>
  geo && Object.keys(geo).length > 0 ? geo : null;

export type EditableLinkInput = Editable;

type WithOptionalId = { id?: string | undefined };

/** Gives every item without an id a new one (8 base62 characters), unique within the list; given ids are kept. */
const withIds = <T extends WithOptionalId>(items: readonly T[]): Array<T & { id: string }> => {
  const taken = new Set(items.flatMap((item) => (item.id === undefined ? [] : [item.id])));
  return items.map((item) => {
    if (item.id !== undefined) return { ...item, id: item.id };
    let id = randomBase62(ASSIGNED_ID_LENGTH);
    while (taken.has(id)) id = randomBase62(ASSIGNED_ID_LENGTH);
    taken.add(id);
    return { ...item, id };
  });
};

/** Redirect rules as stored: ids assigned where absent; an empty list is stored as null. */
export const rulesOf = (rules: Editable['rules']): RedirectRule[] | null =>
  rules && rules.length > 0 ? withIds(rules).map(({ id, conditions, url }) => ({ id, conditions, url })) : null;

/** Variants as stored: ids assigned where absent. */
export const variantsOf = (variants: Editable['variants']): Variant[] | null =>
  variants && variants.length > 0 ? withIds(variants).map(({ id, url, weight }) => ({ id, url, weight })) : null;
