import { Link } from "react-router";

/** A link to a run's page, "#42" (or with `text` before the id: "run #42"). */
export function RunLink({ id, text = "#" }: { id: number; text?: string }) {
  return (
    <Link to={`/runs/${String(id)}`}>
      {text}
      {id}
    </Link>
  );
}
