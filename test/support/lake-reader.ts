import { existsSync, readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { decodeStoredText, isRawObjectName } from '@shared/analytics/lake/raw-objects';

export interface LakeLine {
  /** Partition folder relative to the lake root. */
  dir: string;
  line: Record<string, any>;
}

/** Every raw event line (`.json.gz` objects, gzip; older `.json`) in this test file's local lake, with the folder it was written to. */
export const readLake = (root = process.env.LOCAL_LAKE_DIR!): LakeLine[] => {
  const out: LakeLine[] = [];
  const walk = (dir: string) => {
    if (!existsSync(dir)) return;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (!entry.name.startsWith('.') && isRawObjectName(entry.name))
        for (const line of decodeStoredText(readFileSync(full)).split('\n').filter(Boolean))
          out.push({ dir: path.relative(root, dir), line: JSON.parse(line) });
    }
  };
  walk(root);
  return out;
};
