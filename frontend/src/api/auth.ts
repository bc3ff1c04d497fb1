import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { keys } from "./keys";
import type { LoginBody, User } from "./types";

/** The signed-in user; fails with a 401 ApiError when there is no session. */
export function useMe() {
  return useQuery({
    queryKey: keys.auth.me(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/auth/me", { signal })),
    retry: false,
    staleTime: 5 * 60_000,
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
