import { Link } from "react-router";

import { EmptyState } from "../components/common/Status";

export function NotFoundPage() {
  return (
    <EmptyState title="Page not found">
      Nothing lives at this address. <Link to="/">Go to the overview</Link>.
    </EmptyState>
  );
}
