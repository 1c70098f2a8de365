// `/thumbnail?url=…&size=…`: where the image previews of rendered messages point (Zulip's
// markup for an inline image, render/html.ts). An uploaded file is sent on to its own address,
// where the file's access rule applies. Other addresses are not followed: this path must not
// become an open redirect to any site.

export const THUMBNAIL_PATH = '/thumbnail';

/** The upload a preview link stands for, or null. */
export function thumbnailTarget(params: Record<string, unknown>): string | null {
  const url = params.url;
  if (typeof url !== 'string' || url.length > 8192 || !url.startsWith('/user_uploads/')) return null;
  return /[\\\s]|\/\.\.?(\/|$)/.test(url) ? null : url;
}
