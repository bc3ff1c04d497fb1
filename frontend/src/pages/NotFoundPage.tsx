import { Link } from "react-router";

import { EmptyState } from "../components/common/Status";
import { usePageTitle } from "../hooks/usePageTitle";

export function NotFoundPage() {
  usePageTitle("Not found");
  return (
    <EmptyState title="Page not found">
      Nothing lives at this address. <Link to="/">Go to the overview</Link>.
    </EmptyState>
  );
}
