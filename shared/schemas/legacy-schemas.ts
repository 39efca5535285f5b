import * as z from './zod-mini';
import { httpUrlSchema } from './common-schemas';
import { editableLinkFields } from './link-field-schemas';

/** Form fields both legacy creates take, validated with the v1 field rules. */
const legacyCreateFields = {
  slug: editableLinkFields.slug,
  title: editableLinkFields.title,
  objects: editableLinkFields.objects,
  tags: editableLinkFields.tags,
  comments: editableLinkFields.comments,
  password: editableLinkFields.password,
};

/** POST /api/mobile/link/create, after `objects` and `tags` are decoded from their JSON text. */
export const legacyLinkFormSchema = z.object({ url: httpUrlSchema, ...legacyCreateFields });
export type LegacyLinkForm = z.infer<typeof legacyLinkFormSchema>;

/** POST /api/mobile/deeplink: no url (the app's default URL), no domain (the app's domain). */
export const legacyDeepLinkFormSchema = z.object(legacyCreateFields);
export type LegacyDeepLinkForm = z.infer<typeof legacyDeepLinkFormSchema>;
