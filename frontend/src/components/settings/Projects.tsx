import { useState } from "react";

import { errorMessage } from "../../api/client";
import { useCreateProject, useUpdateProject } from "../../api/projects";
import type { ProjectRead, ProjectUpdate } from "../../api/types";
import { useForm, type FieldErrors } from "../../hooks/useForm";
import { formatDateTime } from "../../lib/format";
import { isProjectSlug } from "../../lib/projects";
import { ConfirmButton } from "../common/ConfirmButton";
import { FormErrors, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";
import { SettingsTable } from "./SettingsTable";

/** The project's settings a checkbox turns on and off. */
const SWITCHES = [
  {
    name: "confirm_regressions",
    text: "Measure a suspected regression of any lab job again before alerting",
  },
  {
    name: "allow_private_webhooks",
    text:
      "Let channels call loopback, private and link-local addresses (a receiver inside the " +
      "lab's network)",
  },
] as const;

/** The current project's settings; an admin changes them, others read them. */
export function ProjectSettings({ project, isAdmin }: { project: ProjectRead; isAdmin: boolean }) {
  const update = useUpdateProject();
  const change = (body: ProjectUpdate) => update.mutate({ slug: project.slug, body });
  return (
    <div className="panel">
      <p>
        <strong>{project.name}</strong> <span className="muted">({project.slug})</span>
        {project.archived_at !== null && (
          <span className="text-bad"> archived {formatDateTime(project.archived_at)}</span>
        )}
      </p>
      {SWITCHES.map(({ name, text }) => (
        <label key={name} className="checkbox">
          <input
            type="checkbox"
            checked={project[name]}
            disabled={!isAdmin || update.isPending}
            onChange={(event) => change({ [name]: event.target.checked })}
          />
          {text}
        </label>
      ))}
      <FormErrors messages={update.isError ? [errorMessage(update.error)] : []} />
    </div>
  );
}

/** Every project (admin only): create, rename, archive and restore. */
export function Projects({ projects }: { projects: ProjectRead[] }) {
  const update = useUpdateProject();
  const [names, setNames] = useState<Record<string, string>>({});
  return (
    <>
      <SettingsTable
        className="projects-table"
        columns={["Slug", "Name", "State"]}
        actions
        rows={projects}
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
  const form = useForm({ slug: "", name: "" });

  function submit() {
    const { slug, name } = form.text;
    const found: FieldErrors<"slug" | "name"> = {};
    if (!isProjectSlug(slug)) found.slug = "lower-case letters, digits and dashes";
    if (name.trim() === "") found.name = "a name";
    if (!form.start(found)) return;
    create.mutate(
      { slug, name: name.trim(), confirm_regressions: false, bisect_regressions: "off" },
      {
        onSuccess: (project) =>
          form.finish(`Project "${project.name}" created.`, { slug: "", name: "" }),
      },
    );
  }

  return (
    <FormPanel
      id="new-project"
      title="New project"
      submitLabel="Create project"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={form.done}
      onSubmit={submit}
    >
      <TextField
        label="Slug"
        hint="Fixed once made: tokens and links name it"
        {...form.field("slug")}
      />
      <TextField label="Name" {...form.field("name")} />
    </FormPanel>
  );
}
