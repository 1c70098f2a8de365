// Zulip names some emoji differently from iamcal's emoji-datasource (its names
// follow Google's set: `:smile:` is U+1F642, not U+1F604). Entries here replace
// the datasource names of that code point; the first name is the canonical one
// (used when a Unicode emoji in the text is shown as `:name:`). A name listed
// here is taken away from any other code point that had it in the datasource.
export const ZULIP_EMOJI_NAME_OVERRIDES: Record<string, string[]> = {
  '1f642': ['smile', 'slightly_smiling_face'],
  '1f604': ['big_smile'],
  '1f641': ['frown', 'slightly_frowning_face'],
  '1f610': ['neutral', 'neutral_face'],
  '1f4a9': ['poop', 'pile_of_poo', 'hankey', 'shit'],
  '1f384': ['holiday_tree', 'christmas_tree'],
  '1f916': ['robot', 'robot_face'],
  '1f914': ['thinking', 'thinking_face'],
  '2b06': ['up', 'arrow_up'],
  '2b07': ['down', 'arrow_down'],
  '2b05': ['left', 'arrow_left'],
  '27a1': ['right', 'arrow_right'],
  '1f408': ['cat', 'cat2'],
  '1f415': ['dog', 'dog2'],
  '1f407': ['rabbit', 'rabbit2'],
  '1f373': ['cooking'],
  '1f44d': ['+1', 'thumbs_up', 'like', 'thumbsup'],
  '1f44e': ['-1', 'thumbs_down', 'thumbsdown'],
  '1f6e0': ['working_on_it', 'hammer_and_wrench', 'tools'],
  '263a': ['smiling_face', 'relaxed'],
  '2705': ['check', 'white_check_mark'],
};

/**
 * Emoticons Zulip translates when the sender enables `translate_emoticons`.
 * Order matters only for overlapping prefixes, which these do not have.
 */
export const EMOTICON_CONVERSIONS: Record<string, string> = {
  ':)': 'smile',
  '(:': 'smile',
  ':(': 'frown',
  '<3': 'heart',
  ':|': 'neutral',
  ':/': 'confused',
  ';)': 'wink',
  ':D': 'grinning',
  ':o': 'open_mouth',
  ':O': 'open_mouth',
  ':p': 'stuck_out_tongue',
  ':P': 'stuck_out_tongue',
};

/**
 * Newest Unicode emoji version we recognise. Clients draw emoji from their own
 * image sets, which lag the Unicode releases; marking an emoji they cannot draw
 * would show a blank, so newer sequences stay plain text.
 */
export const MAX_EMOJI_VERSION = 15.0;
