import { useState } from "react";

import { errorMessage } from "../../api/client";
import { useCreateProject, useProjects, useUpdateProject } from "../../api/projects";
import type { ProjectRead } from "../../api/types";
import { formatDateTime } from "../../lib/format";
import { isProjectSlug } from "../../lib/projects";
import { ConfirmButton } from "../common/ConfirmButton";
import { Field, FormErrors } from "../common/Field";
import { ErrorState, Loading } from "../common/Status";
import { CreateForm } from "./CreateForm";
import { SettingsTable } from "./SettingsTable";

/** The current project's settings; an admin changes them, others read them. */
export function ProjectSettings({ project, isAdmin }: { project: ProjectRead; isAdmin: boolean }) {
  const update = useUpdateProject();
  const change = (body: { confirm_regressions?: boolean; allow_private_webhooks?: boolean }) =>
    update.mutate({ slug: project.slug, body });
  return (
    <div className="panel">
      <p>
        <strong>{project.name}</strong> <span className="muted">({project.slug})</span>
        {project.archived_at !== null && (
          <span className="text-bad"> archived {formatDateTime(project.archived_at)}</span>
        )}
      </p>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={project.confirm_regressions}
          disabled={!isAdmin || update.isPending}
          onChange={(event) => change({ confirm_regressions: event.target.checked })}
        />
        Measure a suspected regression of any lab job again before alerting
      </label>
      <label className="checkbox">
        <input
          type="checkbox"
          checked={project.allow_private_webhooks}
          disabled={!isAdmin || update.isPending}
          onChange={(event) => change({ allow_private_webhooks: event.target.checked })}
        />
        Let channels call loopback, private and link-local addresses (a receiver inside the
        lab&apos;s network)
      </label>
      <FormErrors messages={update.isError ? [errorMessage(update.error)] : []} />
    </div>
  );
}

/** Every project (admin only): create, rename, archive and restore. */
export function Projects() {
  const projects = useProjects();
  const update = useUpdateProject();
  const [names, setNames] = useState<Record<string, string>>({});
  if (projects.isPending) return <Loading label="Loading projects…" />;
  if (projects.isError) {
    return (
      <ErrorState message={errorMessage(projects.error)} onRetry={() => void projects.refetch()} />
    );
  }
  return (
    <>
      <SettingsTable
        className="projects-table"
        columns={["Slug", "Name", "State"]}
        actions
        rows={projects.data}
        error={update.isError ? errorMessage(update.error) : null}
      >
        {(project) => {
          const name = names[project.slug] ?? project.name;
          return (
            <tr key={project.slug} data-project={project.slug}>
              <th scope="row">{project.slug}</th>
              <td>
                <input
                  aria-label={`Name of project ${project.slug}`}
                  value={name}
                  onChange={(event) =>
                    setNames((current) => ({ ...current, [project.slug]: event.target.value }))
                  }
                />
                <button
                  type="button"
                  className="button button-small"
                  disabled={name.trim() === "" || name === project.name || update.isPending}
                  onClick={() => update.mutate({ slug: project.slug, body: { name: name.trim() } })}
                >
                  Rename
                </button>
              </td>
              <td>{project.archived_at === null ? "active" : "archived"}</td>
              <td>
                {project.archived_at === null ? (
                  <ConfirmButton
                    label="Archive"
                    accessibleName={`Archive project ${project.slug}`}
                    onConfirm={() =>
                      update.mutate({ slug: project.slug, body: { archived: true } })
                    }
                  />
                ) : (
                  <button
                    type="button"
                    className="button button-small"
                    onClick={() => update.mutate({ slug: project.slug, body: { archived: false } })}
                  >
                    Restore
                  </button>
                )}
              </td>
            </tr>
          );
        }}
      </SettingsTable>
      <ProjectCreateForm />
    </>
  );
}

function ProjectCreateForm() {
  const create = useCreateProject();
  const [slug, setSlug] = useState("");
  const [name, setName] = useState("");
  const [errors, setErrors] = useState<{ slug?: string; name?: string }>({});
  const [done, setDone] = useState<string | null>(null);

  function submit() {
    setDone(null);
    const found: { slug?: string; name?: string } = {};
    if (!isProjectSlug(slug)) found.slug = "lower-case letters, digits and dashes";
    if (name.trim() === "") found.name = "a name";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    create.mutate(
      { slug, name: name.trim(), confirm_regressions: false, bisect_regressions: "off" },
      {
        onSuccess: (project) => {
          setSlug("");
          setName("");
          setDone(`Project "${project.name}" created.`);
        },
      },
    );
  }

  return (
    <CreateForm
      id="new-project"
      title="New project"
      submitLabel="Create project"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={done}
      onSubmit={submit}
    >
      <Field label="Slug" hint="Fixed once made: tokens and links name it" error={errors.slug}>
        {(control) => (
          <input {...control} value={slug} onChange={(event) => setSlug(event.target.value)} />
        )}
      </Field>
      <Field label="Name" error={errors.name}>
        {(control) => (
          <input {...control} value={name} onChange={(event) => setName(event.target.value)} />
        )}
      </Field>
    </CreateForm>
  );
}
