/** Saving what the page made or fetched as a file download (no request leaves the page for it). */
import { stringify } from 'csv-stringify/browser/esm/sync';

/** Saves a blob under a file name, through a temporary object URL. */
export const saveBlob = (blob: Blob, fileName: string): void => {
  const url = URL.createObjectURL(blob);
  const anchor = document.createElement('a');
  anchor.href = url;
  anchor.download = fileName;
  anchor.hidden = true;
  document.body.append(anchor);
  anchor.click();
  anchor.remove();
  // The download has started from the URL by now; revoking it later frees the blob.
  setTimeout(() => {
    URL.revokeObjectURL(url);
  }, 10_000);
};

/** Rows as CSV text (csv-stringify: quoting and escaping are its job), the first row the header. */
export const toCsv = (rows: readonly (readonly string[])[]): string => stringify(rows.map((row) => [...row]));

export const saveCsv = (rows: readonly (readonly string[])[], fileName: string): void => {
  saveBlob(new Blob([toCsv(rows)], { type: 'text/csv;charset=utf-8' }), fileName);
};
