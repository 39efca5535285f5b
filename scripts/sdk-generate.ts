/**
 * `npm run sdk:generate`: rewrites the SDK's generated types (sdk/src/generated/openapi.ts) from
 * the OpenAPI document. test/unit/sdk-generated.test.ts fails when the committed file is stale.
 */
import { writeFileSync } from 'node:fs';
import { sdkTypesFile, sdkTypesSource } from './sdk-types';

writeFileSync(sdkTypesFile, await sdkTypesSource());
console.log(`Wrote ${sdkTypesFile}.`);
