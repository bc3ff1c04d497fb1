import { useState } from "react";

import { useCreateUser, useMe, useUpdateUser, useUsers } from "../../api/auth";
import { errorMessage } from "../../api/client";
import { useProjects } from "../../api/projects";
import type { Role } from "../../api/types";
import { Field } from "../common/Field";
import { EmptyState } from "../common/Status";
import { CreateForm } from "./CreateForm";
import { SettingsTable } from "./SettingsTable";

const ROLES: Role[] = ["admin", "member", "viewer"];

/** Users and roles (admin only): viewers read, members also change things, admins manage users. */
export function Users() {
  const users = useUsers(true);
  const me = useMe();
  const update = useUpdateUser();
  const projects = useProjects();
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
          const self = user.id === me.data?.id;
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
                  {ROLES.map((role) => (
                    <option key={role} value={role}>
                      {role}
                    </option>
                  ))}
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
                {(projects.data ?? []).map((project) => (
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
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [role, setRole] = useState<Role>("member");
  const [errors, setErrors] = useState<{ email?: string; password?: string }>({});
  const [done, setDone] = useState<string | null>(null);

  function submit() {
    setDone(null);
    const found: { email?: string; password?: string } = {};
    if (!/^[^\s@]+@[^\s@]+$/.test(email.trim())) found.email = "an email address";
    if (password.length < 8) found.password = "at least 8 characters";
    setErrors(found);
    if (Object.keys(found).length > 0) return;
    create.mutate(
      { email: email.trim(), name: name.trim() || null, password, role },
      {
        onSuccess: (user) => {
          setEmail("");
          setName("");
          setPassword("");
          setDone(`${user.email} added as ${user.role}.`);
        },
      },
    );
  }

  return (
    <CreateForm
      id="new-user"
      title="New user"
      submitLabel="Add user"
      pending={create.isPending}
      errors={create.isError ? [errorMessage(create.error)] : []}
      done={done}
      onSubmit={submit}
    >
      <Field label="Email" error={errors.email}>
        {(control) => (
          <input
            {...control}
            type="email"
            autoComplete="off"
            value={email}
            onChange={(event) => setEmail(event.target.value)}
          />
        )}
      </Field>
      <Field label="Name" hint="Optional">
        {(control) => (
          <input {...control} value={name} onChange={(event) => setName(event.target.value)} />
        )}
      </Field>
      <Field label="Initial password" error={errors.password}>
        {(control) => (
          <input
            {...control}
            type="password"
            autoComplete="new-password"
            value={password}
            onChange={(event) => setPassword(event.target.value)}
          />
        )}
      </Field>
      <Field label="Role">
        {(control) => (
          <select
            {...control}
            value={role}
            onChange={(event) => setRole(event.target.value as Role)}
          >
            {ROLES.map((item) => (
              <option key={item} value={item}>
                {item}
              </option>
            ))}
          </select>
        )}
      </Field>
    </CreateForm>
  );
}
