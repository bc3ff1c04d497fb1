import { useRef, useState, type MouseEvent } from "react";
import { ReferenceArea } from "recharts";

import { downloadChart } from "../../lib/chartExport";

/** What a reader changes on a chart: a log value axis, series hidden or shown alone, and the
 * x range zoomed to a span dragged across the plot. */
export interface ChartView {
  log: boolean;
  setLog: (log: boolean) => void;
  /** Series names hidden (a Line's `hide`). */
  hidden: ReadonlySet<string>;
  /** Legend click: hides or shows that series; with Shift, shows it alone (again: all). */
  onLegendClick: (entry: { value?: unknown }, index: number, event: MouseEvent) => void;
  zoom: [number, number] | null;
  resetZoom: () => void;
  /** The chart's mouse handlers, for drag-to-zoom on the x axis. */
  mouse: {
    onMouseDown: (state: { activeLabel?: unknown }) => void;
    onMouseMove: (state: { activeLabel?: unknown }) => void;
    onMouseUp: () => void;
  };
  /** The span being dragged, drawn as a shaded area (render inside the chart). */
  selection: React.ReactNode;
}

export function useChartView(names: string[]): ChartView {
  const [log, setLog] = useState(false);
  const [hidden, setHidden] = useState<ReadonlySet<string>>(new Set());
  const [zoom, setZoom] = useState<[number, number] | null>(null);
  const [drag, setDrag] = useState<{ from: number; to: number } | null>(null);
  const pressed = useRef<number | null>(null);

  function onLegendClick(entry: { value?: unknown }, _index: number, event: MouseEvent) {
    const name = String(entry.value);
    setHidden((current) => {
      if (event.shiftKey) {
        const alone = names.every((other) => (other === name) !== current.has(other));
        return alone ? new Set() : new Set(names.filter((other) => other !== name));
      }
      const next = new Set(current);
      if (next.has(name)) next.delete(name);
      else next.add(name);
      return next;
    });
  }

  const at = (state: { activeLabel?: unknown }) => {
    const x = Number(state.activeLabel);
    return state.activeLabel === undefined || Number.isNaN(x) ? null : x;
  };

  return {
    log,
    setLog,
    hidden,
    onLegendClick,
    zoom,
    resetZoom: () => setZoom(null),
    mouse: {
      // The press itself changes nothing (no render): a click on a point still reaches it.
      onMouseDown: (state) => {
        pressed.current = at(state);
      },
      onMouseMove: (state) => {
        const x = at(state);
        const from = pressed.current;
        if (from !== null && x !== null && x !== from) setDrag({ from, to: x });
      },
      onMouseUp: () => {
        if (drag !== null) setZoom([Math.min(drag.from, drag.to), Math.max(drag.from, drag.to)]);
        pressed.current = null;
        setDrag(null);
      },
    },
    selection:
      drag !== null && drag.from !== drag.to ? (
        <ReferenceArea
          x1={drag.from}
          x2={drag.to}
          fill="var(--accent, #2563eb)"
          fillOpacity={0.15}
          ifOverflow="hidden"
        />
      ) : null,
  };
}

/**
 * The values a zoomed chart shows: those of the rows whose x lies in the zoom (every row's
 * when not zoomed), so the value axis refits to what is drawn.
 */
export function shownValues<Row extends { values: Record<string, number | undefined> }>(
  zoom: [number, number] | null,
  rows: Row[],
  x: (row: Row) => number,
): number[] {
  const shown = zoom === null ? rows : rows.filter((row) => x(row) >= zoom[0] && x(row) <= zoom[1]);
  return shown.flatMap((row) =>
    Object.values(row.values).filter((value): value is number => value !== undefined),
  );
}

/** The value axis: linear, or log from the smallest positive value; fitted to `values`
 * (`shownValues`) when zoomed. */
export function valueAxis(view: ChartView, values: number[]) {
  if (!view.log) {
    if (view.zoom === null || values.length === 0) {
      return { scale: "auto" as const, domain: ["auto", "auto"] as [string, string] };
    }
    const low = Math.min(...values);
    const high = Math.max(...values);
    const margin = (high - low) * 0.05 || Math.abs(high) * 0.05 || 1;
    return {
      scale: "auto" as const,
      domain: [Math.max(0, low - margin), high + margin] as [number, number],
      allowDataOverflow: true,
    };
  }
  const positive = values.filter((value) => value > 0);
  const low = positive.length > 0 ? Math.min(...positive) : 1;
  return {
    scale: "log" as const,
    domain: [low, "auto"] as [number, string],
    allowDataOverflow: true,
  };
}

/** The toolbar over a chart: the log toggle, the zoom's reset, and how to use the legend. */
export function ChartToolbar({ view, logLabel = "Log scale" }: { view: ChartView; logLabel?: string }) {
  return (
    <div className="chart-toolbar">
      <label className="small">
        <input
          type="checkbox"
          checked={view.log}
          onChange={(event) => view.setLog(event.target.checked)}
        />{" "}
        {logLabel}
      </label>
      {view.zoom !== null && (
        <button type="button" className="button button-small" onClick={view.resetZoom}>
          Reset zoom
        </button>
      )}
      <span className="muted small">
        Drag across the plot to zoom; click a legend entry to hide it, Shift-click to show it
        alone.
      </span>
      <ChartExport />
    </div>
  );
}

/** Buttons that download the chart they sit in (the enclosing figure's) as SVG or PNG, named
 * after the figure's label. */
export function ChartExport() {
  function download(target: HTMLElement, format: "svg" | "png") {
    const figure = target.closest("figure");
    if (figure === null) return;
    const name = (figure.getAttribute("aria-label") ?? "chart")
      .toLowerCase()
      .replace(/[^a-z0-9]+/g, "-")
      .replace(/^-|-$/g, "");
    void downloadChart(figure, format, name || "chart");
  }
  return (
    <span className="chart-export">
      {(["svg", "png"] as const).map((format) => (
        <button
          key={format}
          type="button"
          className="button button-small"
          onClick={(event) => download(event.currentTarget, format)}
        >
          {format.toUpperCase()}
        </button>
      ))}
    </span>
  );
}
