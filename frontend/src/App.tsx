import { MutationCache, QueryCache, QueryClient, QueryClientProvider } from "@tanstack/react-query";
import { lazy, Suspense, type ReactNode } from "react";
import { BrowserRouter, Route, Routes } from "react-router";

import { ApiError, isUnauthorized } from "./api/client";
import { keys } from "./api/keys";
import { Loading } from "./components/common/Status";
import { AlertsPage } from "./pages/AlertsPage";
import { AuthedLayout } from "./pages/AuthedLayout";
import { BisectionPage } from "./pages/BisectionPage";
import { BisectionsPage } from "./pages/BisectionsPage";
import { ExperimentPage } from "./pages/ExperimentPage";
import { ExperimentsPage } from "./pages/ExperimentsPage";
import { HostsPage } from "./pages/HostsPage";
import { JobsPage } from "./pages/JobsPage";
import { LoginPage } from "./pages/LoginPage";
import { NotFoundPage } from "./pages/NotFoundPage";
import { OverviewPage } from "./pages/OverviewPage";
import { RepositoriesPage } from "./pages/RepositoriesPage";
import { RepositoryPage } from "./pages/RepositoryPage";
import { RunsPage } from "./pages/RunsPage";
import { SettingsPage } from "./pages/SettingsPage";

// The pages with charts bring in Recharts; load them only when opened.
const RunDetailPage = lazy(async () => ({
  default: (await import("./pages/RunDetailPage")).RunDetailPage,
}));
const ComparePage = lazy(async () => ({
  default: (await import("./pages/ComparePage")).ComparePage,
}));
const ProfileComparePage = lazy(async () => ({
  default: (await import("./pages/ProfileComparePage")).ProfileComparePage,
}));
const TrendsPage = lazy(async () => ({
  default: (await import("./pages/TrendsPage")).TrendsPage,
}));
const SharedPage = lazy(async () => ({
  default: (await import("./pages/SharedPage")).SharedPage,
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

/** The signed-in pages with charts, loaded when opened, and what they say meanwhile. */
const CHARTED = [
  { path: "runs/:runId", label: "Loading run…", Page: RunDetailPage },
  { path: "compare", label: "Loading comparison…", Page: ComparePage },
  { path: "compare/profiles", label: "Loading the profiles…", Page: ProfileComparePage },
  { path: "trends", label: "Loading trends…", Page: TrendsPage },
];

function Charted({ label, children }: { label: string; children: ReactNode }) {
  return <Suspense fallback={<Loading label={label} />}>{children}</Suspense>;
}

export function App() {
  return (
    <QueryClientProvider client={queryClient}>
      <BrowserRouter>
        <Routes>
          <Route path="/login" element={<LoginPage />} />
          <Route
            path="/shared/:token"
            element={
              <Charted label="Loading the shared page…">
                <SharedPage />
              </Charted>
            }
          />
          <Route element={<AuthedLayout />}>
            <Route index element={<OverviewPage />} />
            <Route path="runs" element={<RunsPage />} />
            {CHARTED.map(({ path, label, Page }) => (
              <Route
                key={path}
                path={path}
                element={
                  <Charted label={label}>
                    <Page />
                  </Charted>
                }
              />
            ))}
            <Route path="alerts" element={<AlertsPage />} />
            <Route path="hosts" element={<HostsPage />} />
            <Route path="jobs" element={<JobsPage />} />
            <Route path="repositories" element={<RepositoriesPage />} />
            <Route path="repositories/:name" element={<RepositoryPage />} />
            <Route path="bisections" element={<BisectionsPage />} />
            <Route path="bisections/:bisectionId" element={<BisectionPage />} />
            <Route path="experiments" element={<ExperimentsPage />} />
            <Route path="experiments/:name" element={<ExperimentPage />} />
            <Route path="settings" element={<SettingsPage />} />
            <Route path="*" element={<NotFoundPage />} />
          </Route>
        </Routes>
      </BrowserRouter>
    </QueryClientProvider>
  );
}
