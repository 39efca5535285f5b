/**
 * A structural check of SQL text against the Athena (Trino) rules our queries must keep, where
 * DuckDB is more lenient and so no local test would notice:
 * - an execution parameter `?` only inside a WHERE clause (Athena: "`?` parameters can be placed
 *   only in the WHERE clause"; not in SELECT, GROUP BY, ORDER BY, LIMIT, JOIN ... ON, OVER ...);
 * - no DuckDB-only syntax (`::` casts, `//`, `**`, double-quoted strings as values is not
 *   checkable, but every function called must be one of Trino's, from the allow-list below).
 * The text is tokenized (string literals, quoted identifiers and comments skipped) and each `?`
 * is attributed to the clause that encloses it at its parenthesis depth (a parenthesis opened
 * by a function call or IN list inherits the enclosing clause; a subquery starts its own).
 */

/** Trino functions and the keywords followed by `(` in our SQL. */
const allowedCalls = new Set([
  // Trino functions
  'to_iso8601',
  'date_trunc',
  'from_iso8601_timestamp',
  'count_if',
  'count',
  'max',
  'min',
  'sum',
  'grouping',
  'row_number',
  'coalesce',
  'cast',
  'substr',
  // keywords that take a parenthesis (UNLOAD: the deployed compaction's statement)
  'unload',
  'in',
  'over',
  'as',
  'sets',
  'and',
  'or',
  'not',
  'from',
  'exists',
  'all',
  'values',
  'with',
  'by',
  'when',
  'then',
  'else',
  'on',
  'where',
  'select',
  'union',
]);

const clauseKeywords = new Set([
  'select',
  'from',
  'where',
  'group',
  'having',
  'order',
  'limit',
  'on',
  'partition',
  'union',
  'join',
  'with',
  'offset',
  'values',
  'set',
]);

export interface DialectProblem {
  message: string;
  at: number;
}

type Token = {
  kind: 'word' | 'param' | 'open' | 'close' | 'op' | 'string' | 'ident' | 'number';
  text: string;
  at: number;
};

export const tokenize = (sql: string): Token[] => {
  const tokens: Token[] = [];
  let i = 0;
  while (i < sql.length) {
    const c = sql[i]!;
    if (/\s/.test(c)) i += 1;
    else if (sql.startsWith('--', i)) i = sql.indexOf('\n', i) === -1 ? sql.length : sql.indexOf('\n', i);
    else if (sql.startsWith('/*', i)) i = sql.indexOf('*/', i) === -1 ? sql.length : sql.indexOf('*/', i) + 2;
    else if (c === "'" || c === '"') {
      let j = i + 1;
      for (;;) {
        if (j >= sql.length) throw new Error(`Unterminated ${c} at ${i}`);
        if (sql[j] === c && sql[j + 1] === c) j += 2;
        else if (sql[j] === c) break;
        else j += 1;
      }
      tokens.push({ kind: c === "'" ? 'string' : 'ident', text: sql.slice(i, j + 1), at: i });
      i = j + 1;
    } else if (/[A-Za-z_]/.test(c)) {
      const m = /^[A-Za-z_][A-Za-z0-9_$]*/.exec(sql.slice(i))![0];
      tokens.push({ kind: 'word', text: m.toLowerCase(), at: i });
      i += m.length;
    } else if (/[0-9]/.test(c)) {
      const m = /^[0-9]+(\.[0-9]+)?/.exec(sql.slice(i))![0];
      tokens.push({ kind: 'number', text: m, at: i });
      i += m.length;
    } else if (c === '?') {
      tokens.push({ kind: 'param', text: c, at: i });
      i += 1;
    } else if (c === '(' || c === ')') {
      tokens.push({ kind: c === '(' ? 'open' : 'close', text: c, at: i });
      i += 1;
    } else {
      const two = sql.slice(i, i + 2);
      const op = ['::', '//', '**', '<=', '>=', '<>', '!=', '||', '->'].includes(two) ? two : c;
      tokens.push({ kind: 'op', text: op, at: i });
      i += op.length;
    }
  }
  return tokens;
};

/** Every rule the text breaks (empty: Athena accepts the placement of its parameters and its syntax). */
export const athenaDialectProblems = (sql: string): DialectProblem[] => {
  const problems: DialectProblem[] = [];
  const tokens = tokenize(sql);
  const clauses: string[] = ['none'];
  tokens.forEach((token, index) => {
    const previous = tokens[index - 1];
    if (token.kind === 'word' && clauseKeywords.has(token.text)) clauses[clauses.length - 1] = token.text;
    else if (token.kind === 'open') {
      const next = tokens[index + 1];
      // A subquery opens its own clause scope; a call or list inherits the enclosing clause.
      clauses.push(
        next?.kind === 'word' && (next.text === 'select' || next.text === 'with') ? 'none' : clauses.at(-1)!,
      );
      if (previous?.kind === 'word' && !allowedCalls.has(previous.text))
        problems.push({ message: `function ${previous.text}() is not on the Trino allow-list`, at: previous.at });
    } else if (token.kind === 'close') {
      clauses.pop();
      if (clauses.length === 0) throw new Error(`Unbalanced ) at ${token.at}`);
    } else if (token.kind === 'param' && clauses.at(-1) !== 'where') {
      problems.push({
        message: `? parameter in ${clauses.at(-1)!.toUpperCase()} clause (Athena allows them only in WHERE)`,
        at: token.at,
      });
    } else if (token.kind === 'op' && ['::', '//', '**'].includes(token.text)) {
      problems.push({ message: `DuckDB-only operator ${token.text}`, at: token.at });
    }
  });
  if (clauses.length !== 1) throw new Error('Unbalanced parentheses');
  return problems;
};
