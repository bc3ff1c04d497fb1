import {
  memo,
  useCallback,
  useId,
  useLayoutEffect,
  useMemo,
  useState,
  type KeyboardEvent,
} from "react";

import {
  findFrame,
  frameFills,
  frameSummary,
  layoutFrames,
  searchFrames,
  searchSummary,
  type FlameNode,
  type FlameTree,
  type FrameBox,
  type FrameFill,
} from "../../lib/flamegraph";
import { ChartExport } from "./ChartView";

const ROW = 18; // px per frame row
const CHAR = 7; // px, about one character of the 12px label
const MIN_FRAME_PX = 0.5; // narrower frames (and their callees) are not drawn
const MIN_FOCUSABLE_PX = 24; // narrower ones are reachable by pointer only, not by Tab

/**
 * A flame graph drawn top-down (an icicle: the root at the top, callees below their caller),
 * each frame as wide as its share of the samples. Hover or focus a frame for its name, samples
 * and share; click it (or Enter) to zoom into it, its ancestors or "Reset zoom" to zoom out.
 * Search highlights the frames whose name holds the text and says the share of the samples
 * they cover. A differential tree (two profiles) colours each frame by the change of its self
 * share: red grew, blue shrank; a plain one by its name, in warm colours.
 */
export function FlameGraph({ tree, label }: { tree: FlameTree; label: string }) {
  const [focusId, setFocusId] = useState<string | null>(null);
  const [query, setQuery] = useState("");
  const [hovered, setHovered] = useState<FlameNode | null>(null);
  const [width, measure] = useWidth();
  const searchId = useId();

  const focus = useMemo(
    () => (focusId === null ? null : findFrame(tree, focusId)) ?? tree.root,
    [tree, focusId],
  );
  const boxes = useMemo(
    () => (width > 0 ? layoutFrames(focus, MIN_FRAME_PX / width) : []),
    [focus, width],
  );
  const found = useMemo(() => searchFrames(tree, query), [tree, query]);
  const fills = useMemo(() => frameFills(tree), [tree]);
  const zoom = useCallback(
    (node: FlameNode) => {
      setFocusId(node === tree.root ? null : node.id);
      setHovered(null); // the frame may be gone, and its mouseleave with it
    },
    [tree],
  );

  return (
    <div className="flame">
      <div className="toolbar flame-toolbar">
        <label htmlFor={searchId}>Search frames</label>
        <input
          id={searchId}
          type="search"
          value={query}
          placeholder="a function's name"
          onChange={(event) => setQuery(event.target.value)}
        />
        {found && (
          <span className="flame-matched" data-testid="flame-matched" aria-live="polite">
            {searchSummary(found)}
          </span>
        )}
        <button
          type="button"
          className="button button-small"
          disabled={focus === tree.root}
          onClick={() => zoom(tree.root)}
        >
          Reset zoom
        </button>
      </div>
      <p className="flame-details small" data-testid="flame-details">
        {hovered
          ? frameSummary(hovered, tree)
          : focus === tree.root
            ? "Hover over or focus a frame for its samples; click it to zoom in."
            : `Zoomed into ${focus.name}: click an ancestor above it, or Reset zoom, to zoom out.`}
      </p>
      <figure className="chart flame-graph" aria-label={label}>
        <ChartExport />
        <div ref={measure}>
          {width > 0 && (
            <svg width={width} height={tree.height * ROW} className="flame-svg">
              <Frames
                boxes={boxes}
                width={width}
                fills={fills}
                matches={found?.ids ?? null}
                tree={tree}
                onZoom={zoom}
                onHover={setHovered}
              />
            </svg>
          )}
        </div>
      </figure>
    </div>
  );
}

// Drawn apart from the details line, so hovering a frame does not redraw thousands of them.
const Frames = memo(function Frames({
  boxes,
  width,
  fills,
  matches,
  tree,
  onZoom,
  onHover,
}: {
  boxes: FrameBox[];
  width: number;
  fills: ReadonlyMap<FlameNode, FrameFill>;
  matches: ReadonlySet<string> | null;
  tree: FlameTree;
  onZoom: (node: FlameNode) => void;
  onHover: (node: FlameNode | null) => void;
}) {
  return (
    <>
      {boxes.map(({ node, x, width: share, ancestor }) => {
        const px = share * width;
        const summary = frameSummary(node, tree);
        const fill = fills.get(node);
        const match = matches?.has(node.id) ?? false;
        const classes = ["flame-frame"];
        if (ancestor) classes.push("flame-ancestor");
        if (matches) classes.push(match ? "flame-match" : "flame-dim");
        const onKeyDown = (event: KeyboardEvent) => {
          if (event.key === "Enter" || event.key === " ") {
            event.preventDefault();
            onZoom(node);
          }
        };
        return (
          <g
            key={node.id}
            className={classes.join(" ")}
            transform={`translate(${(x * width).toFixed(2)},${String(node.depth * ROW)})`}
            role="button"
            tabIndex={px >= MIN_FOCUSABLE_PX ? 0 : -1}
            aria-label={summary}
            data-frame={node.name}
            data-frame-id={node.id}
            data-change={fill?.change}
            data-match={matches ? String(match) : undefined}
            onClick={() => onZoom(node)}
            onKeyDown={onKeyDown}
            onMouseEnter={() => onHover(node)}
            onMouseLeave={() => onHover(null)}
            onFocus={() => onHover(node)}
            onBlur={() => onHover(null)}
          >
            <title>{summary}</title>
            <rect width={Math.max(px - 1, 0.5)} height={ROW - 1} rx={2} fill={fill?.colour} />
            {px >= 3 * CHAR && (
              <text x={4} y={ROW - 5}>
                {clip(node.name, Math.floor((px - 6) / CHAR))}
              </text>
            )}
          </g>
        );
      })}
    </>
  );
});

function clip(name: string, chars: number): string {
  if (name.length <= chars) return name;
  return chars >= 3 ? `${name.slice(0, chars - 1)}…` : "";
}

/** The element's width in px, kept up to date as the window resizes. */
function useWidth(): [number, (element: HTMLElement | null) => void] {
  const [element, setElement] = useState<HTMLElement | null>(null);
  const [width, setWidth] = useState(0);
  useLayoutEffect(() => {
    if (!element) return;
    const read = () => setWidth(Math.floor(element.getBoundingClientRect().width));
    read();
    if (typeof ResizeObserver === "undefined") return;
    const observer = new ResizeObserver(read);
    observer.observe(element);
    return () => observer.disconnect();
  }, [element]);
  return [width, setElement];
}
