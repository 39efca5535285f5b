import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * A clone of this repository has no design brief or specification beside it, so no file may send
 * a reader to one: code, comments and docs state the rule itself. The patterns are built from
 * parts so that this file does not match itself.
 */
const outsideDocument = new RegExp(
  ['DESIGN', '\\.md'].join('') + '|\\b' + 'spec' + '(?: section)? \\d+(?:\\.\\d+)?\\b',
  'i',
);

function trackedTextFiles(): string[] {
  const out = execFileSync('git', ['ls-files', '-z'], { encoding: 'utf8' });
  return out.split('\0').filter((f) => /\.(ts|md|json|js|sh)$/.test(f) || f === '.ci/run');
}

describe('the repository stands alone', () => {
  it('the pattern catches a citation of an outside document', () => {
    expect(outsideDocument.test(['see DESIGN', '.md section 4'].join(''))).toBe(true);
    expect(outsideDocument.test(['as in spec', '4.2'].join(' '))).toBe(true);
    expect(outsideDocument.test('the inspector 4 is fine; a spectrum 2 too')).toBe(false);
  });

  it('no tracked file cites the design brief or a specification section', () => {
    const offenders = trackedTextFiles().flatMap((file) =>
      readFileSync(file, 'utf8')
        .split('\n')
        .flatMap((line, i) => (outsideDocument.test(line) ? [`${file}:${i + 1}: ${line.trim()}`] : [])),
    );
    expect(offenders).toEqual([]);
  });
});
