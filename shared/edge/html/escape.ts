const ENTITIES: Record<string, string> = {
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
  '"': '&quot;',
  "'": '&#39;',
  '`': '&#96;',
};

/** Escapes text for HTML element content and double- or single-quoted attribute values. */
export const escapeHtml = (value: string | null | undefined): string =>
  (value ?? '').replace(/[&<>"'`]/g, (c) => ENTITIES[c] ?? c);
