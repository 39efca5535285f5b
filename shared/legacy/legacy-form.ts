import type { $ZodType, output } from 'zod/v4/core';
import * as z from '@shared/schemas/zod-mini';
import {
  legacyDeepLinkFormSchema,
  legacyLinkFormSchema,
  type LegacyDeepLinkForm,
  type LegacyLinkForm,
} from '@shared/schemas/legacy-schemas';
import { jsonDepthExceeds, MAX_JSON_DEPTH } from '@shared/util/json-depth';
import { findJsonSafetyProblem } from '@shared/util/json-safety';
import { legacyErrors } from './legacy-error';

const FORM_FIELDS = ['url', 'slug', 'title', 'objects', 'tags', 'comments', 'password'] as const;

const parseJsonText = (text: string): { ok: true; value: unknown } | { ok: false } => {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
};

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  v !== null && typeof v === 'object' && !Array.isArray(v);

/** A decoded JSON field that cannot be stored exactly (reserved key, lone surrogate, unsafe number) is a 400 naming it. */
const refuseUnsafe = (value: unknown, field: string) => {
  const problem = findJsonSafetyProblem(value, field);
  if (problem) throw legacyErrors.invalidForm(`${problem.path} ${problem.message}`);
};

/** `objects`: serialized JSON object (or `null`); anything else is a 400. */
const decodeObjects = (text: string): Record<string, unknown> | null => {
  const parsed = parseJsonText(text);
  if (!parsed.ok || !(parsed.value === null || isPlainObject(parsed.value))) {
    throw legacyErrors.invalidForm('objects must be a serialized JSON object');
  }
  if (jsonDepthExceeds(parsed.value, MAX_JSON_DEPTH)) {
    throw legacyErrors.invalidForm(`objects is nested deeper than ${MAX_JSON_DEPTH} levels`);
  }
  refuseUnsafe(parsed.value, 'objects');
  return parsed.value;
};

/** `tags`: serialized JSON array of strings; anything else is a 400. */
const decodeTags = (text: string): string[] => {
  const parsed = parseJsonText(text);
  if (!parsed.ok || !Array.isArray(parsed.value) || !parsed.value.every((t) => typeof t === 'string')) {
    throw legacyErrors.invalidForm('tags must be a serialized JSON array of strings');
  }
  refuseUnsafe(parsed.value, 'tags');
  return parsed.value;
};

/** The known fields of the form; an empty value counts as omitted, unknown fields are ignored. */
const knownFields = (fields: Map<string, string>) => {
  const raw: Partial<Record<(typeof FORM_FIELDS)[number], unknown>> = {};
  for (const name of FORM_FIELDS) {
    const value = fields.get(name);
    if (value !== undefined && value !== '') raw[name] = value;
  }
  if (typeof raw.objects === 'string') raw.objects = decodeObjects(raw.objects);
  if (typeof raw.tags === 'string') raw.tags = decodeTags(raw.tags);
  return raw;
};

const validate = <S extends $ZodType>(schema: S, raw: unknown): output<S> => {
  const result = z.safeParse(schema, raw);
  if (result.success) return result.data;
  const problems = result.error.issues.map((i) => `${i.path.map(String).join('.') || 'form'} ${i.message}`);
  throw legacyErrors.invalidForm(`Invalid form: ${problems.join('; ')}`);
};

/** POST /api/mobile/link/create: `url` required; the v1 field rules for every field. */
export const decodeLegacyLinkForm = (fields: Map<string, string>): LegacyLinkForm => {
  const raw = knownFields(fields);
  if (raw.url === undefined) throw legacyErrors.invalidForm('url is required');
  return validate(legacyLinkFormSchema, raw);
};

/** POST /api/mobile/deeplink: `url` is not accepted (the app's default URL is the destination). */
export const decodeLegacyDeepLinkForm = (fields: Map<string, string>): LegacyDeepLinkForm => {
  const raw = knownFields(fields);
  if (raw.url !== undefined) {
    throw legacyErrors.invalidForm("url is not accepted by deeplink create: the app's default URL is used");
  }
  return validate(legacyDeepLinkFormSchema, raw);
};
