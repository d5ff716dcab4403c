import type { Stage } from '../wire.js';
import { layout } from './graph-layout.js';

const WIDTH = 150;
const HEIGHT = 36;
const GAP_X = 50;
const GAP_Y = 14;

/**
 * The stages as a graph of their `depends_on`, drawn as SVG, left to right, each node coloured by its
 * status (and naming it: colour is not the only sign) and linking to the stage's steps.
 */
export function StageGraph({ stages, select }: { stages: readonly Stage[]; select: (stage: Stage) => void }) {
  const places = layout(stages);
  const columns = Math.max(0, ...[...places.values()].map((p) => p.column)) + 1;
  const rows = Math.max(0, ...[...places.values()].map((p) => p.row)) + 1;
  const at = (name: string) => {
    const place = places.get(name) ?? { column: 0, row: 0 };
    return { x: place.column * (WIDTH + GAP_X), y: place.row * (HEIGHT + GAP_Y) };
  };
  const width = columns * (WIDTH + GAP_X) - GAP_X;
  const height = rows * (HEIGHT + GAP_Y) - GAP_Y;
  return (
    <svg
      class="graph"
      role="img"
      aria-label="stage graph"
      viewBox={`-2 -2 ${width + 4} ${height + 4}`}
      width={width + 4}
      height={height + 4}
    >
      {stages.flatMap((stage) =>
        (stage.depends_on ?? [])
          .filter((dep) => places.has(dep))
          .map((dep) => {
            const from = at(dep);
            const to = at(stage.name);
            const x1 = from.x + WIDTH;
            const y1 = from.y + HEIGHT / 2;
            const y2 = to.y + HEIGHT / 2;
            const mid = (x1 + to.x) / 2;
            return (
              <path
                key={`${dep}->${stage.name}`}
                class="edge"
                d={`M${x1},${y1} C${mid},${y1} ${mid},${y2} ${to.x},${y2}`}
              />
            );
          }),
      )}
      {stages.map((stage) => {
        const { x, y } = at(stage.name);
        return (
          <g
            key={stage.name}
            class={`node node-${stage.status}`}
            role="button"
            tabIndex={0}
            aria-label={`stage ${stage.name}: ${stage.status.replaceAll('_', ' ')}`}
            onClick={() => select(stage)}
            onKeyDown={(e) => (e.key === 'Enter' || e.key === ' ') && select(stage)}
          >
            <rect x={x} y={y} width={WIDTH} height={HEIGHT} rx={6} />
            {/* One text, so that its words read "build pending" as the label says them (axe's
                label-content-name-mismatch), each line a tspan. */}
            <text>
              <tspan x={x + 10} y={y + 15}>
                {stage.name.length > 18 ? `${stage.name.slice(0, 17)}…` : stage.name}
              </tspan>{' '}
              <tspan x={x + 10} y={y + 29} class="node-status">
                {stage.status.replaceAll('_', ' ')}
              </tspan>
            </text>
          </g>
        );
      })}
    </svg>
  );
}
