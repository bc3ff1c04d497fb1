import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useWrite } from "./hooks";
import { keys } from "./keys";
import { canWrite, isAdmin } from "./roles";
import type { LoginBody, TokenCreate, User, UserCreate, UserUpdate } from "./types";

/** The signed-in user; fails with a 401 ApiError when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: keys.auth.me(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/auth/me", { signal })),
    retry: false,
    staleTime: 5 * 60_000,
  });
}

/**
 * What the signed-in user may do. Pages render inside AuthedLayout, which waits for the user,
 * so the answer is known; until then nothing may be written.
 */
export function usePermissions(): { canWrite: boolean; isAdmin: boolean } {
  const me = useMe();
  if (me.data === undefined) return { canWrite: false, isAdmin: false };
  return { canWrite: canWrite(me.data.role), isAdmin: isAdmin(me.data.role) };
}

/** How to sign in here: passwords, and the lab's single sign-on providers. */
export function useSignInOptions() {
  return useQuery({
    queryKey: keys.auth.providers(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/auth/providers", { signal })),
  });
}

export function useLogin() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: (body: LoginBody) => unwrap(api.POST("/api/v1/auth/login", { body })),
    onSuccess: (user: User) => {
      queryClient.setQueryData(keys.auth.me(), user);
    },
  });
}

export function useLogout() {
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.POST("/api/v1/auth/logout")),
    // Whatever the answer, nothing cached belongs to the next user.
    onSettled: () => {
      queryClient.removeQueries();
    },
  });
}

export function useTokens() {
  return useQuery({
    queryKey: keys.auth.tokens(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/tokens", { signal })),
  });
}

/** Creates a token; the secret is in the mutation's data, and nowhere else, ever again. */
export function useCreateToken() {
  return useWrite(
    (body: TokenCreate) => unwrap(api.POST("/api/v1/tokens", { body })),
    [keys.auth.tokens()],
  );
}

export function useRevokeToken() {
  return useWrite(
    (tokenId: number) =>
      unwrap(api.DELETE("/api/v1/tokens/{token_id}", { params: { path: { token_id: tokenId } } })),
    [keys.auth.tokens()],
    "settled",
  );
}

export function useUsers(enabled: boolean) {
  return useQuery({
    queryKey: keys.auth.users(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/users", { signal })),
    enabled,
  });
}

export function useCreateUser() {
  return useWrite(
    (body: UserCreate) => unwrap(api.POST("/api/v1/users", { body })),
    [keys.auth.users()],
  );
}

export function useUpdateUser() {
  return useWrite(
    ({ userId, body }: { userId: number; body: UserUpdate }) =>
      unwrap(api.PATCH("/api/v1/users/{user_id}", { params: { path: { user_id: userId } }, body })),
    // An admin may change their own role: the users list and the session's user both refresh.
    [keys.auth.all],
    "settled",
  );
}
