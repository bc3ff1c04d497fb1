import { useState, type FormEvent } from "react";

import { errorMessage } from "../../api/client";
import { useCreateProject, useProjects, useUpdateProject } from "../../api/projects";
import type { ProjectRead } from "../../api/types";
import { formatDateTime } from "../../lib/format";
import { isProjectSlug } from "../../lib/projects";
import { ConfirmButton } from "../common/ConfirmButton";
import { Field, FormErrors } from "../common/Field";
import { ErrorState, Loading } from "../common/Status";

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
      <div className="table-scroll">
        <table className="table projects-table">
          <thead>
            <tr>
              <th scope="col">Slug</th>
              <th scope="col">Name</th>
              <th scope="col">State</th>
              <th scope="col">
                <span className="visually-hidden">Actions</span>
              </th>
            </tr>
          </thead>
          <tbody>
            {projects.data.map((project) => {
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
                      onClick={() =>
                        update.mutate({ slug: project.slug, body: { name: name.trim() } })
                      }
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
                        onClick={() =>
                          update.mutate({ slug: project.slug, body: { archived: false } })
                        }
                      >
                        Restore
                      </button>
                    )}
                  </td>
                </tr>
              );
            })}
          </tbody>
        </table>
      </div>
      {update.isError && (
        <p className="form-error" role="alert">
          {errorMessage(update.error)}
        </p>
      )}
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

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    setDone(null);
    const found: { slug?: string; name?: string } = {};
    if (!isProjectSlug(slug)) found.slug = "lower-case letters, digits and dashes";
    if (name.trim() === "") found.name = "a name";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    create.mutate(
      { slug, name: name.trim(), confirm_regressions: false },
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
    <form className="panel" onSubmit={submit} noValidate aria-labelledby="new-project">
      <h3 id="new-project">New project</h3>
      <div className="form-grid">
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
      </div>
      <FormErrors messages={create.isError ? [errorMessage(create.error)] : []} />
      <div className="form-actions">
        <button type="submit" className="button button-primary" disabled={create.isPending}>
          Create project
        </button>
        {done && (
          <span className="text-good" role="status">
            {done}
          </span>
        )}
      </div>
    </form>
  );
}
