import { numberFormat, percentFormat } from '../format';

export interface BreakdownRow {
  key: string;
  label: string;
  count: number;
  percentage: number;
}

/**
 * One breakdown of a link's clicks as a table named by its caption ("Countries", "Devices", ...):
 * each value, its count and its share, ranked, with a bar for the share (the number says it too).
 */
export const Breakdown = ({
  title,
  column,
  rows,
  countLabel = 'Clicks',
}: {
  title: string;
  column: string;
  rows: readonly BreakdownRow[] | undefined;
  countLabel?: string;
}) => (
  <div className="panel breakdown">
    <table>
      <caption className="panel-title">{title}</caption>
      <thead>
        <tr>
          <th scope="col">{column}</th>
          <th scope="col" className="num">
            {countLabel}
          </th>
          <th scope="col">Share</th>
        </tr>
      </thead>
      <tbody>
        {rows && rows.length > 0 ? (
          rows.map((row) => (
            <tr key={row.key}>
              <th scope="row">{row.label}</th>
              <td className="num">{numberFormat.format(row.count)}</td>
              <td className="share">
                <meter min={0} max={100} value={row.percentage} aria-hidden="true" />
                <span>{percentFormat.format(row.percentage)}%</span>
              </td>
            </tr>
          ))
        ) : (
          <tr>
            <td colSpan={3} className="notice">
              No data in this range.
            </td>
          </tr>
        )}
      </tbody>
    </table>
  </div>
);
