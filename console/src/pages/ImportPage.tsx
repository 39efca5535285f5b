import type { Link } from '@linkservice/sdk';
import { useQuery } from '@tanstack/react-query';
import { useEffect, useState, type SyntheticEvent } from 'react';
import { useLocation, useSearch } from 'wouter';
import { api } from '../api';
import { ErrorNotice } from '../components/ErrorNotice';
import { saveCsv } from '../download';
import { numberFormat } from '../format';
import {
  CHUNK_SIZE,
  classifyTaken,
  failureRows,
  FORMAT_LABELS,
  hasUrlColumn,
  IMPORT_FORMATS,
  prepareRow,
  readCsvRecords,
  reasonOf,
  resultsOf,
  type CsvRecord,
  type ImportFormat,
  type RowResult,
} from '../import-model';
import { useSession } from '../session-context';

const isFormat = (value: string | null): value is ImportFormat =>
  (IMPORT_FORMATS as readonly string[]).includes(value ?? '');

interface Run {
  fileName: string;
  headers: string[];
  records: CsvRecord[];
  done: number;
  results: RowResult[];
  finished: boolean;
}

const resultText = (r: RowResult) => {
  if (r.ok) return 'Created';
  switch (reasonOf(r)) {
    case 'already_imported':
      return 'Skipped: imported before (this key is already a link to the same destination)';
    case 'slug_taken':
      return "Skipped: the key is another link's (a link to another destination, or not this workspace's)";
    case 'failed':
      return `Failed: ${r.message}${r.details ? ` (${r.details})` : ''}`;
  }
};

/** The workspace's link with this key on this domain, archived or not (undefined when it has none). */
const findLink =
  (domain: string) =>
  async (key: string): Promise<Link | undefined> => {
    const same = (link: Link) => link.domain.toLowerCase() === domain.toLowerCase() && link.key === key;
    for (const archived of [false, true])
      for await (const link of api.links.list({ search: key, domain, limit: 100, ...(archived ? { archived } : {}) }))
        if (same(link)) return link;
    return undefined;
  };

/**
 * Import: a Bitly, Rebrandly, Short.io or generic CSV export, mapped in the browser as the CLI's
 * importer maps it and created 100 rows per `POST /v1/links/bulk`, with a progress bar, each
 * row's result, and the failed rows as a CSV to fix and import again. The format and domain are
 * in the address.
 */
export const ImportPage = () => {
  const { canWrite } = useSession();
  const [, navigate] = useLocation();
  const params = new URLSearchParams(useSearch());
  const formatParam = params.get('format');
  const format: ImportFormat = isFormat(formatParam) ? formatParam : 'generic';
  const domainParam = params.get('domain') ?? '';
  const [file, setFile] = useState<File | undefined>();
  const [run, setRun] = useState<Run | undefined>();
  const [error, setError] = useState<unknown>();
  useEffect(() => {
    document.title = 'Import · Link service console';
  }, []);

  const domains = useQuery({
    queryKey: ['domains', 'all'],
    queryFn: async () => {
      const all = [];
      for await (const domain of api.domains.list({ limit: 100 })) all.push(domain);
      return all;
    },
  });
  const usable = (domains.data ?? []).filter((d) => !d.archived);
  const domain = domainParam || usable.find((d) => d.primary)?.domain || usable[0]?.domain || '';

  const setParams = (next: { format?: ImportFormat; domain?: string }) => {
    const search = new URLSearchParams();
    const f = next.format ?? format;
    const d = next.domain ?? domainParam;
    if (f !== 'generic') search.set('format', f);
    if (d) search.set('domain', d);
    const text = search.toString();
    navigate(`/import${text ? `?${text}` : ''}`, { replace: true });
  };

  const start = async (event: SyntheticEvent) => {
    event.preventDefault();
    setError(undefined);
    if (!file || !domain) return;
    let parsed: ReturnType<typeof readCsvRecords>;
    try {
      parsed = readCsvRecords(await file.text());
    } catch (e) {
      setError(new Error(`${file.name} is not a CSV file: ${e instanceof Error ? e.message : String(e)}`));
      return;
    }
    if (!hasUrlColumn(format, parsed.headers)) {
      setError(
        new Error(
          `${file.name} has no destination URL column for the ${FORMAT_LABELS[format]} format (headers: ${parsed.headers.join(', ')})`,
        ),
      );
      return;
    }
    const current: Run = { fileName: file.name, ...parsed, done: 0, results: [], finished: false };
    setRun(current);
    for (let i = 0; i < parsed.records.length; i += CHUNK_SIZE) {
      const chunk = parsed.records.slice(i, i + CHUNK_SIZE);
      const prepared = await Promise.all(chunk.map((r) => prepareRow(format, domain, r)));
      const valid = prepared.filter((p) => p.ok);
      const results: RowResult[] = prepared.filter((p) => !p.ok);
      if (valid.length) {
        try {
          const answered = resultsOf(valid, await api.links.bulkCreate({ links: valid.map((p) => p.body) }));
          const urls = new Map(valid.map((p) => [p.row, p.body.url]));
          results.push(...(await classifyTaken(answered, urls, findLink(domain))));
        } catch (e) {
          // The whole request was refused (session ended, rate limited...): stop, keeping what was done.
          setError(e);
          setRun((old) => old && { ...old, finished: true });
          return;
        }
      }
      results.sort((a, b) => a.row - b.row);
      current.results = [...current.results, ...results];
      current.done += chunk.length;
      setRun({ ...current });
    }
    setRun({ ...current, finished: true });
  };

  const count = (reason: ReturnType<typeof reasonOf>) =>
    run?.results.filter((r) => !r.ok && reasonOf(r) === reason).length ?? 0;
  const created = run?.results.filter((r) => r.ok).length ?? 0;
  const imported = count('already_imported');
  const taken = count('slug_taken');
  const failed = count('failed');
  const running = run !== undefined && !run.finished;

  return (
    <section className="page">
      <h1>Import</h1>
      <p className="help">
        Upload a CSV export from Bitly, Rebrandly or Short.io (or a generic file with <code>url</code>, <code>key</code>
        , <code>title</code> and <code>tags</code> columns). Each row becomes a link on the domain you choose, with the
        export&apos;s slug as its key; a row without a slug gets a key derived from its content, so importing the same
        file again skips what it created.
      </p>
      {!canWrite ? (
        <p className="notice">Your key can read links but not create them: ask for a key with links:write.</p>
      ) : null}
      <form className="import-form" onSubmit={(event) => void start(event)}>
        <div className="field">
          <label htmlFor="import-format">Format</label>
          <select
            id="import-format"
            value={format}
            onChange={(event) => {
              if (isFormat(event.target.value)) setParams({ format: event.target.value });
            }}
          >
            {IMPORT_FORMATS.map((f) => (
              <option key={f} value={f}>
                {FORMAT_LABELS[f]}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="import-domain">Domain</label>
          <select
            id="import-domain"
            value={domain}
            onChange={(event) => {
              setParams({ domain: event.target.value });
            }}
          >
            {usable.map((d) => (
              <option key={d.id} value={d.domain}>
                {d.domain}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="import-file">CSV file</label>
          <input
            id="import-file"
            type="file"
            accept=".csv,text/csv"
            onChange={(event) => {
              setFile(event.target.files?.[0]);
              setRun(undefined);
            }}
          />
        </div>
        <div className="actions start">
          <button type="submit" disabled={!canWrite || !file || !domain || running}>
            Import links
          </button>
        </div>
      </form>
      {domains.error ? <ErrorNotice title="The domains could not be loaded" error={domains.error} /> : null}
      {error ? <ErrorNotice title="The import stopped" error={error} /> : null}
      {run ? (
        <div className="panel">
          <h2 className="panel-title">{run.fileName}</h2>
          <label htmlFor="import-progress">Import progress</label>
          <progress id="import-progress" max={Math.max(run.records.length, 1)} value={run.done}>
            {run.done} of {run.records.length}
          </progress>
          <p role="status">
            {running
              ? `Imported ${numberFormat.format(run.done)} of ${numberFormat.format(run.records.length)} rows…`
              : null}
            {run.finished
              ? `Done: ${numberFormat.format(created)} created, ${numberFormat.format(imported + taken)} skipped (${numberFormat.format(imported)} imported before, ${numberFormat.format(taken)} with another link's key), ${numberFormat.format(failed)} failed (${numberFormat.format(run.records.length)} rows).`
              : null}
          </p>
          {run.finished && failed + imported + taken > 0 ? (
            <button
              type="button"
              className="secondary"
              onClick={() => {
                saveCsv(
                  failureRows(run.headers, run.records, run.results),
                  `${run.fileName.replace(/\.csv$/i, '')}-failures.csv`,
                );
              }}
            >
              Download failures (CSV)
            </button>
          ) : null}
          <div className="table-wrap">
            <table>
              <caption className="panel-title">Import results</caption>
              <thead>
                <tr>
                  <th scope="col" className="num">
                    Row
                  </th>
                  <th scope="col">Key</th>
                  <th scope="col">Result</th>
                </tr>
              </thead>
              <tbody>
                {run.results.map((r) => (
                  <tr
                    key={r.row}
                    className={r.ok ? undefined : reasonOf(r) === 'failed' ? 'row-failed' : 'row-skipped'}
                  >
                    <td className="num">{r.row}</td>
                    <td>{r.ok ? r.shortLink.replace(/^https?:\/\//, '') : (r.key ?? '—')}</td>
                    <td>{resultText(r)}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
        </div>
      ) : null}
    </section>
  );
};
