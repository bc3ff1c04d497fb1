import type { ReactNode } from "react";

import { commitHref } from "../../lib/repos";

/**
 * What shows a commit (`children`: its short sha, titled with the whole one), linked to the
 * commit on its repository's site when the repository has a commit URL; as it is otherwise.
 * The link opens beside the dashboard. `focusable={false}`: for many small links (a range's
 * strip) that the keyboard need not stop at, one by one.
 */
export function CommitLink({
  sha,
  commitUrl,
  focusable = true,
  children,
}: {
  sha: string;
  commitUrl: string | null | undefined;
  focusable?: boolean;
  children: ReactNode;
}) {
  const href = commitHref(commitUrl, sha);
  if (href === null) return <>{children}</>;
  return (
    <a
      className="commit-link"
      href={href}
      target="_blank"
      rel="noreferrer"
      {...(focusable ? {} : { tabIndex: -1 })}
    >
      {children}
    </a>
  );
}
