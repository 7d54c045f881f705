"""SQLAlchemy 2 models of tutorgraph, one module per feature over one `Base` (`base.py`).

Client-visible session ids are UUID strings; everything else uses integer keys. JSON columns hold
lists and small documents (concepts, sources, image metadata, quiz items). Importing this package
registers every table on `Base.metadata`, which Alembic diffs against the migrations."""

from __future__ import annotations

from tutorgraph.store.models.assessment import Assessment
from tutorgraph.store.models.base import NAMING, Base, UTCDateTime, new_uuid, utcnow
from tutorgraph.store.models.constructor import (
    ConstructorEvent,
    ConstructorImage,
    ConstructorSession,
    ConstructorUpload,
)
from tutorgraph.store.models.courses import (
    AuthoredDomain,
    ConceptPage,
    CourseEnrollment,
    CourseShare,
    LearningPath,
    Lesson,
    Module,
    Project,
    UserLessonProgress,
    Visibility,
)
from tutorgraph.store.models.interview import Interview, Resume
from tutorgraph.store.models.learning import (
    ConceptBKTParams,
    ConceptMastery,
    ConceptReview,
    EvaluationEvent,
    InstructorAlert,
    NextStep,
)
from tutorgraph.store.models.lti import LtiCache, LtiLink, LtiScore
from tutorgraph.store.models.practice import QuizAnswer, QuizQuestion, QuizSession
from tutorgraph.store.models.tutor import (
    ChatMessage,
    ExplorationMessage,
    ExplorationSession,
    TutorQuizAnswer,
    TutorQuizCard,
    TutorSession,
)
from tutorgraph.store.models.users import ROLES, LoginAttempt, RevokedToken, Role, User
from tutorgraph.store.models.xapi import XapiStatement

__all__ = [
    "NAMING",
    "ROLES",
    "Assessment",
    "AuthoredDomain",
    "Base",
    "ChatMessage",
    "ConceptBKTParams",
    "ConceptMastery",
    "ConceptPage",
    "ConceptReview",
    "ConstructorEvent",
    "ConstructorImage",
    "ConstructorSession",
    "ConstructorUpload",
    "CourseEnrollment",
    "CourseShare",
    "EvaluationEvent",
    "ExplorationMessage",
    "ExplorationSession",
    "InstructorAlert",
    "Interview",
    "LearningPath",
    "Lesson",
    "LoginAttempt",
    "LtiCache",
    "LtiLink",
    "LtiScore",
    "Module",
    "NextStep",
    "Project",
    "QuizAnswer",
    "QuizQuestion",
    "QuizSession",
    "Resume",
    "RevokedToken",
    "Role",
    "TutorQuizAnswer",
    "TutorQuizCard",
    "TutorSession",
    "UTCDateTime",
    "User",
    "UserLessonProgress",
    "Visibility",
    "XapiStatement",
    "new_uuid",
    "utcnow",
]
