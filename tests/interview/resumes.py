"""A resume written for the interview tests: three projects, two jobs, skills, education."""

RESUME = """# Priya Raman
priya@example.com | +1 555 0100

Backend engineer who likes data pipelines and clean APIs.

## Experience
**Senior Backend Engineer**, Lumen Analytics (2021 - present)
- Led a team of 5 rebuilding the ingestion pipeline in Python and Kafka; cut latency by 40%.
- Introduced FastAPI services backed by PostgreSQL.

Software Engineer, Northwind Retail (2018 - 2021)
- Wrote ETL jobs in pandas and SQL for 30 stores.

## Projects
### Route planner
- A delivery route optimiser using OR-Tools; saved drivers 12% distance.
### Log search
- A full-text log search service in Go with an inverted index.
### Churn model
- A scikit-learn churn classifier with a feature pipeline and weekly retraining.

## Skills
Python, SQL, pandas, scikit-learn, FastAPI, Kafka, Docker

## Education
B.Sc. Computer Science, University of Leeds, 2018
"""
