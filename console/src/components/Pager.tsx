/**
 * Previous / next over a cursor-paged list: `cursors` holds the cursor of every page opened so
 * far (the first page's is undefined), so "Previous page" needs no cursor from the API. Shown only
 * when there is more than one page.
 */
export const Pager = ({
  label,
  cursors,
  setCursors,
  hasMore,
  nextCursor,
  loading,
}: {
  /** The navigation's accessible name, e.g. "Pages of links". */
  label: string;
  cursors: readonly (string | undefined)[];
  setCursors: (update: (old: (string | undefined)[]) => (string | undefined)[]) => void;
  hasMore: boolean | undefined;
  nextCursor: string | null | undefined;
  /** The page shown is a placeholder while the next one loads. */
  loading: boolean;
}) =>
  cursors.length > 1 || hasMore ? (
    <nav className="pager" aria-label={label}>
      <button
        type="button"
        className="secondary"
        disabled={cursors.length === 1}
        onClick={() => {
          setCursors((old) => old.slice(0, -1));
        }}
      >
        Previous page
      </button>
      <span>Page {cursors.length}</span>
      <button
        type="button"
        className="secondary"
        disabled={!hasMore || loading}
        onClick={() => {
          if (nextCursor) setCursors((old) => [...old, nextCursor]);
        }}
      >
        Next page
      </button>
    </nav>
  ) : null;
