import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { sdkTypesFile, sdkTypesSource } from '../../scripts/sdk-types';

describe('@linkservice/sdk generated types', () => {
  it('are what `npm run sdk:generate` writes from the current OpenAPI document (run it after an API change)', async () => {
    expect(readFileSync(sdkTypesFile, 'utf8')).toBe(await sdkTypesSource());
  });
});
