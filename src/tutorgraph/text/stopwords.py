"""Word sets named by what they are for. They differ on purpose: a grader must keep "more",
"not" and "before" (they decide whether a short answer is right), while a search for what a
learner asked can drop "explain", "lesson" and "more"."""

from __future__ import annotations

from tutorgraph.text.tokens import wordset

# Function words carry no answer content. Comparatives (more, less, same...) and negations are
# deliberately absent: in short science answers they often decide correctness.
ANSWER_STOPWORDS = wordset(
    """
    a about above after again against all also am an and any are as at be because been before
    being below between both but by can could did do does doing down during each either else
    for from further had has have having he her here hers herself him himself his how i if in
    into is it its itself just let me my myself of off on once only or other our ours ourselves
    out over own s she should so some such t than that the their theirs them themselves then
    there these they this those through thus to too under until up us very was we were what when
    where which while who whom why will with would you your yours yourself yourselves one ones
    get gets got may might must shall thing things way ways also therefore thats it's they're
    i'm because cause since well yes oh etc e g eg ie
    """
)

NEGATIONS = wordset(
    """
    not no never none nothing nobody neither nor cannot cant can't don't dont doesn't doesnt
    didn't didnt isn't isnt aren't arent wasn't wasnt weren't werent won't wont wouldn't
    wouldnt shouldn't shouldnt couldn't couldnt hasn't hasnt haven't havent without
    """
)

# Light verbs, fillers and intensifiers: they carry no idea of their own in an answer ("a copy
# is made", "they genuinely run in parallel").
FILLERS = wordset(
    """
    make makes made making do does did done doing go goes went gone going take takes took
    taken put puts happen happens happened basically actually really just like kind sort
    simply obviously literally pretty quite stuff whatever guess think thinks believe
    mean means meant say says said genuinely truly definitely certainly honestly surely
    indeed totally
    """
)
ARTICLES = frozenset({"a", "an", "the"})
# Words of order and position say which comes first or which way: "read before assignment" is not
# "read after assignment". Function words to the lexical model, they are content to an idea (and
# the opposites table pairs them).
ORDER_WORDS = frozenset({"before", "after", "above", "below"})
# What `meaning` drops from an idea: the answer stopwords less the words of order.
IDEA_STOPWORDS = ANSWER_STOPWORDS - ORDER_WORDS

# What a learner's question to the tutor says besides its subject: function words, requests
# ("explain", "tell"), chat ("thanks", "hmm") and words about the course itself ("lesson").
QUESTION_STOPWORDS = wordset(
    """
    a about above after again all also am an and any are as at be because been before being
    below between both but by can could did do does doing down during each few for from further
    had has have having he her here hers him his how i if in into is it its itself just me more
    most my no nor not of off on once only or other our out over own same she should so some such
    than that the their them then there these they this those through to too under until up very
    was we were what when where which while who whom why will with would you your yours explain
    tell show give please want know understand mean means meaning work works does did thing
    things lot really just like get got make makes made use used using ok okay hi hello hey thanks
    thank let us let's something anything can't cannot don't doesn't actually basically exactly
    literally kind sort stuff way someone somewhere saw seen im i'm dont cant isnt doesnt whats
    why's how's pls plz gonna wanna kinda sorta hmm um uh yeah yes okay right wait sure
    lesson lessons course courses section sections chapter part parts cover covers covered
    talk talks mention mentions discuss discusses picture
"""
)
