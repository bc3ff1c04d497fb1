import { useCreateUser, useUpdateUser } from "../../api/auth";
import { errorMessage } from "../../api/client";
import type { QueryState } from "../../api/hooks";
import type { ProjectRead, Role, UserRead } from "../../api/types";
import { useForm, type FieldErrors } from "../../hooks/useForm";
import { SelectField, TextField } from "../common/Field";
import { FormPanel } from "../common/FormPanel";
import { Options } from "../common/Select";
import { EmptyState } from "../common/Status";
import { SettingsTable } from "./SettingsTable";

const ROLES: Role[] = ["admin", "member", "viewer"];

/** Users and roles (admin only): viewers read, members also change things, admins manage users. */
export function Users({
  users,
  projects,
  selfId,
}: {
  users: QueryState<UserRead[]>;
  /** The projects a user may be made a member of. */
  projects: ProjectRead[];
  /** The signed-in admin, who changes neither their own role nor their own sign-in. */
  selfId: number | undefined;
}) {
  const update = useUpdateUser();
  return (
    <>
      <SettingsTable
        className="users-table"
        columns={["Email", "Name", "Role", "Active", "Projects"]}
        rows={users}
        loading="Loading users…"
        empty={<EmptyState title="No users" />}
        error={update.isError ? errorMessage(update.error) : null}
      >
        {(user) => {
          const self = user.id === selfId;
          return (
            <tr key={user.id} data-user-id={user.id}>
              <th scope="row">
                {user.email}
                {self && <span className="muted small"> (you)</span>}
              </th>
              <td>{user.name ?? "—"}</td>
              <td>
                <select
                  aria-label={`Role of ${user.email}`}
                  value={user.role}
                  disabled={update.isPending || self}
                  onChange={(event) =>
                    update.mutate({
                      userId: user.id,
                      body: { role: event.target.value as Role },
                    })
                  }
                >
                  <Options options={ROLES} />
                </select>
              </td>
              <td>
                <input
                  type="checkbox"
                  aria-label={`${user.email} may sign in`}
                  checked={user.is_active}
                  disabled={update.isPending || self}
                  onChange={(event) =>
                    update.mutate({
                      userId: user.id,
                      body: { is_active: event.target.checked },
                    })
                  }
                />
              </td>
              <td>
                {projects.map((project) => (
                  <label key={project.slug} className="checkbox">
                    <input
                      type="checkbox"
                      aria-label={`${user.email} is a member of ${project.slug}`}
                      checked={user.projects.includes(project.slug)}
                      disabled={update.isPending}
                      onChange={(event) =>
                        update.mutate({
                          userId: user.id,
                          body: {
                            projects: event.target.checked
                              ? [...user.projects, project.slug]
                              : user.projects.filter((slug) => slug !== project.slug),
                          },
                        })
                      }
                    />
                    {project.slug}
                  </label>
                ))}
              </td>
            </tr>
          );
        }}
      </SettingsTable>
      <UserCreateForm />
    </>
  );
}

function UserCreateForm() {
  const create = useCreateUser();
  const form = useForm({ email: "", name: "", password: "", role: "member" as Role });
  const { field } = form;

  function submit() {
    const { email, name, password, role } = form.text;
    const found: FieldErrors<"email" | "password"> = {};
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) found.email = "an email address";
    if (password.length < 8) found.password = "at least 8 characters";
    if (!form.start(found)) return;
    create.mutate(
      { email: email.trim(), name: name.trim() || null, password, role },
      {
        onSuccess: (user) =>
          form.finish(`${user.email} added as ${user.role}.`, (current) => ({
            ...current,
            email: "",
            name: "",
            password: "",
          })),
      },
    );
  }

  return (
    <FormPanel
      id="new-user"
      title="New user"
      submitLabel="Add user"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={form.done}
      onSubmit={submit}
    >
      <TextField label="Email" type="email" autoComplete="off" {...field("email")} />
      <TextField label="Name" hint="Optional" {...field("name")} />
      <TextField
        label="Initial password"
        type="password"
        autoComplete="new-password"
        {...field("password")}
      />
      <SelectField label="Role" options={ROLES} {...field("role")} />
    </FormPanel>
  );
}
