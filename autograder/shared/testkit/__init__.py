"""What the tests of each assignment share, so that a test cell reads as a few calls and a
comparison: one module per assignment (its references, its "is it defined, is the
primitive untouched" preambles, its value comparisons over the transformations the task
names); reduce_sum_programs holds reduce_sum_rules' verdicts on its compiled programs.

Test code runs in the grader's process (the runner) and, for public tests under
grader.check, in the student's: these modules only ask through `probe` and judge with
`checks`, like the tests themselves. They are not secret: what a test proves is in the
README; which inputs and which checks a hidden test uses stays in the autograder zip.
"""
