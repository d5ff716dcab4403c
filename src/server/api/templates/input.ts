import { z } from 'zod';
import { templateNameProblem, templateNamespaceProblem } from '../../../core/template.js';
import { TEMPLATE_LIMITS } from '../../../pipeline/templates/index.js';

/** A template's name: one file name whose extension says its language (core/template.ts). */
export const TemplateName = z.string().superRefine((name, context) => {
  const problem = templateNameProblem(name);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

/** A namespace of templates, from the path. */
export const TemplateNamespace = z.string().superRefine((namespace, context) => {
  const problem = templateNamespaceProblem(namespace);
  if (problem !== undefined) context.addIssue({ code: 'custom', message: problem });
});

const TemplateData = z
  .string()
  .min(1, 'a template needs its text')
  .refine((data) => Buffer.byteLength(data) <= TEMPLATE_LIMITS.templateBytes, {
    message: `at most ${TEMPLATE_LIMITS.templateBytes} bytes`,
  });

export const NamespaceParams = z.object({ namespace: TemplateNamespace });
export const TemplateParams = z.object({ namespace: TemplateNamespace, name: z.string().min(1) });

/**
 * Fields Drone's clients send with a template that the server decides itself (drone-go serializes
 * its whole Template struct): accepted and ignored, so that `drone template add` works unchanged.
 */
const droneExtras = {
  id: z.number().optional(),
  created: z.number().optional(),
  updated: z.number().optional(),
};

/** `POST /api/templates/{namespace}`: Drone's template input. */
export const NewTemplateBody = z
  .object({
    name: TemplateName,
    data: TemplateData,
    // The namespace is the path's; a body that names another is refused by the route.
    namespace: z.string().optional(),
    ...droneExtras,
  })
  .strict();

/**
 * `PATCH`/`PUT /api/templates/{namespace}/{name}`: Drone's update — new text, or another namespace
 * to move the template to. `name` may be sent but not changed.
 */
export const TemplatePatch = z
  .object({
    data: TemplateData.optional(),
    namespace: TemplateNamespace.optional(),
    name: z.string().optional(),
    ...droneExtras,
  })
  .strict();
