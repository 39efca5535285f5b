import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { projectRoot } from '@shared/local/paths';

/**
 * No import cycles in the application code, type-only imports included: ESLint's import-x/no-cycle
 * ignores `import type`, this test does not. The graph is TypeScript's own view of the imports:
 * `ts.preProcessFile` lists every module a file names (imports and re-exports, `import type`,
 * `import()` calls and types), `ts.resolveModuleName` resolves each with tsconfig.json's options
 * (the @shared/@lib/@lambdas aliases, relative paths). Cycles are the strongly connected
 * components of that graph (Tarjan).
 */
const ROOTS = ['shared', 'lib', 'lambdas', 'bin', 'scripts'];

const relative = (file: string) => path.relative(projectRoot, file).split(path.sep).join('/');

const sourceFiles = () =>
  ROOTS.flatMap((root) =>
    readdirSync(path.join(projectRoot, root), { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile() && entry.name.endsWith('.ts'))
      .map((entry) => path.join(entry.parentPath, entry.name)),
  );

const compilerOptions = () => {
  const configPath = path.join(projectRoot, 'tsconfig.json');
  const { config, error } = ts.readConfigFile(configPath, (file) => ts.sys.readFile(file));
  if (error) throw new Error(ts.flattenDiagnosticMessageText(error.messageText, '\n'));
  return ts.parseJsonConfigFileContent(config, ts.sys, projectRoot).options;
};

/** Each file's project imports (files under the project root, not packages), by relative path. */
const importGraph = (files: string[]): Map<string, string[]> => {
  const options = compilerOptions();
  const host = ts.createCompilerHost(options);
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const { importedFiles } = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const targets = importedFiles.flatMap(({ fileName }) => {
      const resolved = ts.resolveModuleName(fileName, file, options, host).resolvedModule;
      if (!resolved || resolved.isExternalLibraryImport) return [];
      const target = relative(resolved.resolvedFileName);
      return target.startsWith('..') ? [] : [target];
    });
    graph.set(relative(file), [...new Set(targets)].sort());
  }
  return graph;
};

/** The strongly connected components with a cycle in them (two files or more, or a file importing itself). */
const cycles = (graph: Map<string, string[]>): string[][] => {
  const index = new Map<string, number>();
  const lowLink = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const found: string[][] = [];
  const visit = (node: string) => {
    index.set(node, index.size);
    lowLink.set(node, index.get(node)!);
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!index.has(next)) {
        visit(next);
        lowLink.set(node, Math.min(lowLink.get(node)!, lowLink.get(next)!));
      } else if (onStack.has(next)) {
        lowLink.set(node, Math.min(lowLink.get(node)!, index.get(next)!));
      }
    }
    if (lowLink.get(node) === index.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        onStack.delete(member);
        component.push(member);
      } while (member !== node);
      if (component.length > 1 || graph.get(node)?.includes(node)) found.push(component.sort());
    }
  };
  for (const node of graph.keys()) if (!index.has(node)) visit(node);
  return found;
};

/** One import path around a component, from its first file back to it, for the failure message. */
const cyclePath = (graph: Map<string, string[]>, component: string[]) => {
  const members = new Set(component);
  const start = component[0]!;
  const cameFrom = new Map<string, string>();
  const queue = [start];
  while (queue.length) {
    const node = queue.shift()!;
    for (const next of graph.get(node) ?? []) {
      if (!members.has(next)) continue;
      if (next === start) {
        const way = [node];
        while (way[0] !== start) way.unshift(cameFrom.get(way[0]!)!);
        return [...way, start].join(' -> ');
      }
      if (!cameFrom.has(next)) {
        cameFrom.set(next, node);
        queue.push(next);
      }
    }
  }
  return component.join(', ');
};

const key = (component: string[]) => [...component].sort().join('\n');

describe('import cycles', () => {
  const graph = importGraph(sourceFiles());
  const found = cycles(graph);

  it('reads the application code and sees type-only imports', () => {
    expect(graph.size).toBeGreaterThan(100);
    expect(graph.get('shared/events/local-lake-sink.ts')).toContain('shared/events/event-sink-interface.ts');
  });

  it('finds a cycle, type-only or not, and only a real one', () => {
    const sample = new Map([
      ['a.ts', ['b.ts']],
      ['b.ts', ['c.ts']],
      ['c.ts', ['a.ts', 'd.ts']],
      ['d.ts', []],
      ['e.ts', ['e.ts']],
    ]);
    expect(cycles(sample).map(key).sort()).toEqual([key(['a.ts', 'b.ts', 'c.ts']), key(['e.ts'])]);
    expect(cyclePath(sample, ['a.ts', 'b.ts', 'c.ts'])).toBe('a.ts -> b.ts -> c.ts -> a.ts');
    expect(cycles(new Map([['a.ts', ['b.ts']]]))).toEqual([]);
  });

  it('has no import cycle', () => {
    expect(found.map((component) => ({ files: component, forInstance: cyclePath(graph, component) }))).toEqual([]);
  });
});
