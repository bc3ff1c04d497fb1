import { useState, type FormEvent } from "react";
import { useLocation, useNavigate, useSearchParams } from "react-router";

import { useLogin, useSignInOptions } from "../api/auth";
import { ApiError, errorMessage } from "../api/client";
import { usePageTitle } from "../hooks/usePageTitle";

/** Sign-in: the lab's single sign-on providers, each a button to its own sign-in page, and
 * email and password unless the lab turned them off. */
export function LoginPage() {
  usePageTitle("Sign in");
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const login = useLogin();
  const navigate = useNavigate();
  const location = useLocation();
  const [search] = useSearchParams();
  const options = useSignInOptions();
  const passwords = options.data?.passwords ?? true;
  const providers = options.data?.providers ?? [];
  // A single sign-on that did not go through comes back here saying why.
  const failed = search.get("error");

  function submit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    login.mutate(
      { email, password },
      { onSuccess: () => void navigate(returnPath(location.state), { replace: true }) },
    );
  }

  return (
    <main className="login">
      <form className="login-card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">latlab</h1>
        <p className="muted">Sign in to the latency lab.</p>
        {failed && (
          <p className="form-error" role="alert">
            {failed}
          </p>
        )}
        {providers.map((provider) => (
          <a
            key={provider.name}
            className="button"
            href={`/api/v1/auth/oidc/${provider.name}/start?${new URLSearchParams({
              next: returnPath(location.state),
            }).toString()}`}
          >
            Sign in with {provider.label}
          </a>
        ))}
        {passwords && providers.length > 0 && (
          <p className="muted small">or with your email and password</p>
        )}
        {passwords && (
          <>
            <label htmlFor="login-email">Email</label>
            <input
              id="login-email"
              name="email"
              type="email"
              autoComplete="username"
              required
              value={email}
              onChange={(event) => setEmail(event.target.value)}
            />
            <label htmlFor="login-password">Password</label>
            <input
              id="login-password"
              name="password"
              type="password"
              autoComplete="current-password"
              required
              value={password}
              onChange={(event) => setPassword(event.target.value)}
            />
            {login.isError && (
              <p className="form-error" role="alert">
                {login.error instanceof ApiError && login.error.status === 401
                  ? "Wrong email or password."
                  : errorMessage(login.error)}
              </p>
            )}
            <button type="submit" className="button button-primary" disabled={login.isPending}>
              {login.isPending ? "Signing in…" : "Sign in"}
            </button>
          </>
        )}
      </form>
    </main>
  );
}

/** Back to the page that sent the visitor here, else the overview. */
function returnPath(state: unknown): string {
  if (typeof state === "object" && state !== null && "from" in state) {
    const from = (state as { from: unknown }).from;
    if (typeof from === "string" && from.startsWith("/") && !from.startsWith("/login")) return from;
  }
  return "/";
}
