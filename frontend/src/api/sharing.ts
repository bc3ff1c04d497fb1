import { useQuery } from "@tanstack/react-query";

import { api, unwrap } from "./client";
import { useReplace, useWrite } from "./hooks";
import { keys } from "./keys";
import type { EmbedOrigins, ShareLinkCreate } from "./types";

/** What a share link shows, read without a login (404: no such link; 410: revoked or
 * expired). */
export function useShared(token: string) {
  return useQuery({
    queryKey: keys.sharing.shared(token),
    queryFn: ({ signal }) =>
      unwrap(api.GET("/api/v1/shared/{token}", { params: { path: { token } }, signal })),
    retry: false,
  });
}

/** The project's share links, newest first (never their tokens). */
export function useShareLinks() {
  return useQuery({
    queryKey: keys.sharing.links(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/share-links", { signal })),
  });
}

/** Makes a read-only link; its token and URL are in the answer, and only there. */
export function useCreateShareLink() {
  return useWrite(
    (body: ShareLinkCreate) => unwrap(api.POST("/api/v1/share-links", { body })),
    [keys.sharing.links()],
  );
}

export function useRevokeShareLink() {
  return useWrite(
    (id: number) =>
      unwrap(api.DELETE("/api/v1/share-links/{link_id}", { params: { path: { link_id: id } } })),
    [keys.sharing.links()],
  );
}

export function useEmbedOrigins() {
  return useQuery({
    queryKey: keys.sharing.origins(),
    queryFn: ({ signal }) => unwrap(api.GET("/api/v1/embed-origins", { signal })),
  });
}

/** Sets the origins whose pages may frame the project's shared links (admins). */
export function useSetEmbedOrigins() {
  return useReplace(
    (body: EmbedOrigins) => unwrap(api.PUT("/api/v1/embed-origins", { body })),
    keys.sharing.origins(),
  );
}
