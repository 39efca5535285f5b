import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { projectRoot } from '@shared/local/paths';

/** Writes a test's figures to test/artifacts/<file> (JSON), where CI keeps them. */
export const writeTestArtifact = (file: string, figures: unknown): void => {
  const dir = path.join(projectRoot, 'test', 'artifacts');
  mkdirSync(dir, { recursive: true });
  writeFileSync(path.join(dir, file), JSON.stringify(figures, null, 2));
};
