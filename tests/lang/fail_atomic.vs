sheet "first"
# %%
sheet "second"
convert 1GiB B
convret 1GB GiB
# %%
convert 2GB MB
