import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, Suspense } from "react";
import { BrowserRouter, Navigate, Route, Routes } from "react-router";

import { ApiError, isUnauthorized } from "./api/client";
import { keys } from "./api/keys";
import { Loading } from "./components/common/Status";
import { AuthedLayout } from "./pages/AuthedLayout";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { RunsPage } from "./pages/RunsPage";

// The run page brings in Recharts; load it only when a run is opened.
const RunDetailPage = lazy(async () => ({
  default: (await import("./pages/RunDetailPage")).RunDetailPage,
}));

function createQueryClient(): QueryClient {
  // A 401 anywhere means the session ended: re-check it, and AuthedLayout sends us to /login.
  const onError = (error: unknown) => {
    if (isUnauthorized(error)) void queryClient.invalidateQueries({ queryKey: keys.auth.me() });
  };
  const queryClient: QueryClient = new QueryClient({
    queryCache: new QueryCache({
      onError: (error, query) => {
        if (query.queryKey[0] !== keys.auth.all[0]) onError(error);
      },
    }),
    mutationCache: new MutationCache({ onError }),
    defaultOptions: {
      queries: {
        // Client errors will not heal by retrying; server and network errors may.
        retry: (failures, error) =>
          !(error instanceof ApiError && error.status < 500) && failures < 2,
        refetchOnWindowFocus: false,
      },
    },
  });
  return queryClient;
}

const queryClient = createQueryClient();

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route path="/login" element={<LoginPage />} />
          <Route element={<AuthedLayout />}>
            <Route index element={<Navigate to="/runs" replace />} />
            <Route path="runs" element={<RunsPage />} />
            <Route
              path="runs/:runId"
              element={
                <Suspense fallback={<Loading label="Loading run…" />}>
                  <RunDetailPage />
                </Suspense>
              }
            />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
