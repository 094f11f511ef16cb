"""Training plans: pure arithmetic over the dataset's figures.

figures.py   the dataset's figures from the per-record frame
estimate.py  the frozen Estimate (what the run's trainer says: its steps, packing, rows and bill, ftlint/trainers/)
groups.py    its figures by concern: data, counts, run, schedule, cost (flat in its JSON: Estimate.to_dict)
sources.py   where each plan figure's value came from
study.py     `ftlint plan`: the cost of a tuning study
"""
