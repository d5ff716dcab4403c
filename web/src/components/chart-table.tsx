import type { ComponentChildren } from 'preact';

/**
 * A chart's numbers as a table, folded under "Show the numbers": what the chart shows, for screen
 * readers (the charts themselves are images with a title) and for anyone who wants the values.
 */
export function NumbersTable(props: {
  label: string;
  columns: readonly string[];
  rows: readonly { key: string | number; cells: readonly ComponentChildren[] }[];
}) {
  return (
    <details class="numbers">
      <summary>Show the numbers</summary>
      <div class="scroll">
        <table class="builds" aria-label={props.label}>
          <thead>
            <tr>
              {props.columns.map((column, at) => (
                <th key={at} scope="col">
                  {column}
                </th>
              ))}
            </tr>
          </thead>
          <tbody>
            {props.rows.map((row) => (
              <tr key={row.key}>
                {row.cells.map((cell, at) =>
                  at === 0 ? (
                    <th key={at} scope="row">
                      {cell}
                    </th>
                  ) : (
                    <td key={at}>{cell}</td>
                  ),
                )}
              </tr>
            ))}
          </tbody>
        </table>
      </div>
    </details>
  );
}
