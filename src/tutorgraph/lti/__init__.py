"""LTI 1.3: launches from a school's LMS into a course, and grades going back (AGS)."""
