import { z } from 'zod';

/**
 * A project's name: the first part of its servers' names (`<project>--<server>`), so the same
 * alphabet as server names, shorter so the server's own name fits after it.
 */
export const PROJECT_NAME_PATTERN = /^[a-zA-Z0-9_]+(?:-[a-zA-Z0-9_]+)*$/;
export const PROJECT_NAME_MAX = 24;
export const ProjectNameSchema = z
  .string()
  .max(PROJECT_NAME_MAX, `project names are at most ${PROJECT_NAME_MAX} characters`)
  .regex(
    PROJECT_NAME_PATTERN,
    'project names may use only letters, digits, "_" and single "-" (never "--", which separates it from its servers)',
  );

/** One folder whose committed MCP files Switchboard reads (`switchboard projects add DIR`). */
export const ProjectSchema = z.object({
  name: ProjectNameSchema,
  /** the folder, absolute and with symlinks resolved when it was added */
  dir: z.string().min(1),
  addedAt: z.number(),
  /**
   * per server (`<project>--<entry>`), the requests of its file (`${GITHUB_TOKEN}`) the person gave a
   * value for (`switchboard projects give`): each is then a keychain secret of its own
   */
  given: z.record(z.string(), z.array(z.string())).default({}),
});
export type Project = z.infer<typeof ProjectSchema>;

/** <home>/projects.json */
export const ProjectsFileSchema = z.object({
  version: z.literal(1),
  projects: z.array(ProjectSchema).default([]),
});
export type ProjectsFile = z.infer<typeof ProjectsFileSchema>;

/** One server a project's file names, as `switchboard projects` and status show it. */
export const ProjectServerInfoSchema = z.object({
  /** its name in Switchboard (`<project>--<server>`): its endpoint is /mcp/<name> */
  name: z.string(),
  /** its name in the project's file */
  entry: z.string(),
  /** the file that said it, absolute */
  file: z.string(),
  /** sha256 (hex) of that file's bytes as read */
  digest: z.string(),
  /** why Switchboard will not run it (it then is no server of Switchboard's at all) */
  problem: z.string().optional(),
  /** `${env:…}`/`${secret:…}`/`${VAR}` the file asks for: never filled from the person's own */
  requests: z.array(z.string()).default([]),
});
export type ProjectServerInfo = z.infer<typeof ProjectServerInfoSchema>;

export const ProjectInfoSchema = z.object({
  name: z.string(),
  dir: z.string(),
  /** the project files found, each with its digest */
  files: z.array(z.object({ file: z.string(), digest: z.string(), problem: z.string().optional() })),
  servers: z.array(ProjectServerInfoSchema),
  /** the route editors working in the folder are given: /mcp/@<project> */
  endpoint: z.string(),
  /** editors whose own per-project settings Switchboard wrote for this folder */
  editors: z.array(z.string()).default([]),
  /** editors that used its route in the last ten minutes (as far as the bridge knows) */
  activeEditors: z.array(z.string()).optional(),
});
export type ProjectInfo = z.infer<typeof ProjectInfoSchema>;

/** A project as the UI shows it: its servers' states (pending-approval, running, …) beside. */
export const ProjectViewSchema = ProjectInfoSchema.extend({
  /** per server name: its state, or "refused" (its entry cannot run as it is) */
  states: z.record(z.string(), z.string()),
  /** per server name: the requests of its file still without a value (the UI asks for each) */
  needs: z.record(z.string(), z.array(z.string())).default({}),
});
export type ProjectView = z.infer<typeof ProjectViewSchema>;

/**
 * A folder an editor works in (its roots) that has project MCP files and is not a project yet:
 * Switchboard offers to add it, never adds it by itself.
 */
export const ProjectOfferSchema = z.object({
  dir: z.string(),
  /** the name it would get (the folder's) */
  name: z.string(),
  /** its MCP files with servers, relative to it (`.mcp.json`) */
  files: z.array(z.string()),
  /** the editors whose roots named it */
  editors: z.array(z.string()),
  at: z.number(),
});
export type ProjectOffer = z.infer<typeof ProjectOfferSchema>;

/** GET /api/projects */
export const ProjectsViewSchema = z.object({
  projects: z.array(ProjectViewSchema),
  offers: z.array(ProjectOfferSchema),
});
export type ProjectsView = z.infer<typeof ProjectsViewSchema>;

/** The answers of POST /api/projects, DELETE /api/projects/<name>, POST …/offers/decline */
export const ProjectAddedSchema = z.object({ project: ProjectSchema });
export const ProjectRemovedSchema = z.object({ removed: ProjectSchema });
export const ProjectOfferDeclinedSchema = z.object({ declined: z.boolean() });

/**
 * POST /api/projects/give: the value for one request of a project server's file (as
 * `switchboard projects give`), kept as that server's own keychain secret; never sent back.
 */
export const ProjectGiveRequestSchema = z.object({
  server: z.string().min(1),
  request: z.string().min(1),
  value: z.string().min(1, 'give a value'),
});
export const ProjectGivenSchema = z.object({ server: z.string(), request: z.string(), secret: z.string() });
export type ProjectGiven = z.infer<typeof ProjectGivenSchema>;

/** POST /api/projects/offers/decline */
export const ProjectOfferDeclineSchema = z.object({ dir: z.string().min(1) });

/** POST /api/projects */
export const ProjectAddRequestSchema = z.object({
  dir: z.string().min(1),
  name: z.string().optional(),
});

/** `<project>--<server>`: "--" never occurs in a project name, so the split is unambiguous. */
export const PROJECT_SEPARATOR = '--';

/**
 * <home>/project-offers.json: the folders the person said "Not now" to, never offered again (kept
 * across restarts; `switchboard projects add DIR` still adds one).
 */
export const ProjectOffersFileSchema = z.object({
  version: z.literal(1),
  declined: z.array(z.string()).default([]),
});
export type ProjectOffersFile = z.infer<typeof ProjectOffersFileSchema>;
