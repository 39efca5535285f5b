import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@shared/local/paths';
import { buildOpenApiDocument } from '@shared/openapi/openapi-document';

/** `npm run openapi [-- <file>]`: writes the OpenAPI 3.1 document (default dist/openapi.json). */
const target = path.resolve(projectRoot, process.argv[2] ?? 'dist/openapi.json');
mkdirSync(path.dirname(target), { recursive: true });
writeFileSync(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${path.relative(process.cwd(), target)}`);
