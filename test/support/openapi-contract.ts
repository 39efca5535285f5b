import { Ajv2020, type ValidateFunction } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

/*
 * The contract check: an answer of the service API against the OpenAPI document. Ajv (the JSON
 * Schema validator most tools build on, draft 2020-12 as OpenAPI 3.1 uses) validates JSON bodies
 * against the documented schema of the operation and status, with ajv-formats for `format`
 * (`uri`, `date-time`...). An answer fails when its status is not one the operation lists, its
 * media type is not documented for that status, or its body does not match: a field the schema
 * does not have (the resources are closed objects), a missing one, a wrong type or format, an
 * error code the status does not list.
 */

// ajv-formats is CommonJS with `exports.default`: its default import is the module object in
// some loaders and the function in others.
const addFormats = ((addFormatsModule as unknown as { default?: typeof addFormatsModule }).default ??
  addFormatsModule) as unknown as (ajv: Ajv2020) => Ajv2020;

/** An answer as the check needs it. */
export interface ContractAnswer {
  method: string;
  /** The request path as sent (not decoded), without the query. */
  path: string;
  status: number;
  headers: Record<string, string | number | boolean | undefined>;
  /** The body as sent: text, or base64 when `base64` is set. */
  body: string | undefined;
  base64?: boolean;
}

interface MediaContent {
  schema?: unknown;
}
interface Operation {
  operationId: string;
  responses: Record<string, { content?: Record<string, MediaContent> }>;
}
interface Document {
  paths: Record<string, Record<string, Operation>>;
  components: unknown;
}

const documentId = 'https://contract.local/openapi.json';

/**
 * A path template as a pattern: each `{param}` one segment, or with `greedy` the last one the
 * rest of the path (the route table's `{proxy+}`, which the document writes `{proxy}`).
 */
const templatePattern = (template: string, greedy: boolean) => {
  const escaped = template.replace(/[.*+?^$()|[\]\\]/g, '\\$&').replace(/\{\w+\}/g, '[^/]+');
  return new RegExp(`^${greedy ? escaped.replace(/\[\^\/\]\+$/, '.+') : escaped}$`);
};

/** A checker over one document: `check` answers the problems of one answer (none when it conforms). */
export const createContractChecker = (document: unknown = buildOpenApiDocument()) => {
  const doc = JSON.parse(JSON.stringify(document)) as Document;
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: true });
  addFormats(ajv);
  ajv.addSchema({ $id: documentId, components: doc.components });
  // Literal paths before templated ones, fewer parameters first (as API Gateway matches).
  const templates = Object.keys(doc.paths)
    .map((template) => ({ template, params: template.split('{').length }))
    .sort((a, b) => a.params - b.params);
  // Every template matched segment by segment first; a greedy last parameter only when none matches.
  const patterns = [false, true].flatMap((greedy) =>
    templates.map(({ template }) => ({ template, pattern: templatePattern(template, greedy) })),
  );
  const validators = new Map<string, ValidateFunction>();

  const validatorFor = (key: string, schema: unknown): ValidateFunction => {
    let validate = validators.get(key);
    if (!validate) {
      // The operation's schema refers to components by `#/components/...`: point those at the
      // document registered above, so components compile once.
      const text = JSON.stringify(schema).replace(/"#\/components\//g, `"${documentId}#/components/`);
      validate = ajv.compile(JSON.parse(text) as object);
      validators.set(key, validate);
    }
    return validate;
  };

  const operationOf = (method: string, path: string) => {
    const trimmed = path.length > 1 ? path.replace(/\/$/, '') : path;
    const verb = method === 'HEAD' ? 'get' : method.toLowerCase();
    for (const { template, pattern } of patterns) {
      const operation = doc.paths[template]?.[verb];
      if (operation && pattern.test(trimmed)) return { template, operation };
    }
    return undefined;
  };

  const headerOf = (answer: ContractAnswer, name: string) => {
    const entry = Object.entries(answer.headers).find(([key]) => key.toLowerCase() === name);
    return entry?.[1] === undefined ? undefined : String(entry[1]);
  };

  /** The problems of a JSON body against a schema. */
  const jsonProblems = (key: string, schema: unknown, answer: ContractAnswer): string[] => {
    if (answer.method === 'HEAD') return [];
    let body: unknown;
    try {
      const text = answer.base64 ? Buffer.from(answer.body ?? '', 'base64').toString('utf8') : (answer.body ?? '');
      body = JSON.parse(text);
    } catch {
      return ['the body is not JSON'];
    }
    const validate = validatorFor(key, schema);
    if (validate(body)) return [];
    return (validate.errors ?? []).map(
      (error) =>
        `${error.instancePath || '(body)'} ${error.message ?? 'is invalid'}${
          error.keyword === 'additionalProperties' || error.keyword === 'enum' || error.keyword === 'const'
            ? ` ${JSON.stringify(error.params)}`
            : ''
        }`,
    );
  };

  const check = (answer: ContractAnswer): string[] => {
    const found = operationOf(answer.method, answer.path);
    if (!found) {
      // No documented operation: the catch-all's `not_found` in the envelope.
      return answer.status === 404
        ? jsonProblems('unknown-route', { $ref: '#/components/schemas/ErrorEnvelope' }, answer)
        : [`no documented operation, and the answer is ${String(answer.status)}, not the catch-all's 404`];
    }
    const { operation, template } = found;
    const response = operation.responses[String(answer.status)];
    if (!response) {
      return [
        `${operation.operationId} (${answer.method} ${template}) does not document status ${String(answer.status)} (it lists ${Object.keys(operation.responses).join(', ')})`,
      ];
    }
    const mediaType = headerOf(answer, 'content-type')?.split(';')[0]?.trim().toLowerCase();
    const empty = answer.body === undefined || answer.body === '';
    if (!response.content) return empty ? [] : [`status ${String(answer.status)} documents no body, and one came`];
    if (empty && answer.method === 'HEAD') return [];
    const content = mediaType === undefined ? undefined : response.content[mediaType];
    if (!content) {
      return [
        `status ${String(answer.status)} documents ${Object.keys(response.content).join(', ')}, not ${mediaType ?? 'no content type'}`,
      ];
    }
    if (mediaType !== 'application/json' || content.schema === undefined) return [];
    return jsonProblems(`${operation.operationId} ${String(answer.status)}`, content.schema, answer).map(
      (problem) => `${operation.operationId} ${String(answer.status)}: ${problem}`,
    );
  };

  return { check };
};
